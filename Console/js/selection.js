// What one view asks another to open with: the devices view's "Apply all pages…" names the device the
// apply-all view preselects. Shared state, so views never import each other.
let device = null;
let dryRunAtOnce = false;

/** Names the device the next apply-all view opens with; with `dryRun` (a banner's restore) its dry run starts at once. */
export function preselectDevice(deviceId, dryRun = false) {
  device = deviceId;
  dryRunAtOnce = dryRun;
}

/** Whether the apply-all view is to run its dry run at once, once. */
export function takeDryRunAtOnce() {
  const d = dryRunAtOnce;
  dryRunAtOnce = false;
  return d;
}

/** The device named for the apply-all view, once: a later visit opens with its own default. */
export function takePreselectedDevice() {
  const d = device;
  device = null;
  return d;
}
