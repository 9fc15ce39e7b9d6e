// What one view asks another to open with: the devices view's "Apply all pages…" names the device the
// apply-all view preselects; a banner's "Restore…" asks for a restore. Shared state, so views never import each other.
let device = null;
let restore = false;

/** Names the device the next apply-all view opens with; with `asRestore` (a banner's restore) the view writes each
 * page's version last verified on the device (the replacement policy's choice) and runs its dry run at once. */
export function preselectDevice(deviceId, asRestore = false) {
  device = deviceId;
  restore = asRestore;
}

/** Whether the apply-all view opens as a restore (last verified versions, dry run at once), once. */
export function takeRestore() {
  const r = restore;
  restore = false;
  return r;
}

/** The device named for the apply-all view, once: a later visit opens with its own default. */
export function takePreselectedDevice() {
  const d = device;
  device = null;
  return d;
}
