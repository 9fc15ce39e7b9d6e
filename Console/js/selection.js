// What one view asks another to open with: the devices view's "Apply all pages…" names the device the
// apply-all view preselects. Shared state, so views never import each other.
let device = null;

/** Names the device the next apply-all view opens with. */
export function preselectDevice(deviceId) {
  device = deviceId;
}

/** The device named for the apply-all view, once: a later visit opens with its own default. */
export function takePreselectedDevice() {
  const d = device;
  device = null;
  return d;
}
