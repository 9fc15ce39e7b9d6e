// The daemon's events (GET /v1/events) as the console hears them: one EventSource while signed in (app.js opens and
// closes it), and the listeners the views add. The browser reopens a dropped stream by itself and sends the last event
// id (Last-Event-ID): the daemon replays what was missed, or sends `gap` first when it cannot — the views then fetch
// their state again. Views refresh on these events, not on timers.

/** The events the views act on: machine findings, drift, as-found records kept (`backup`), jobs, and `gap` (events were
 * missed: fetch everything). */
export const eventNames = [
  'replaced', 'factoryReset', 'anotherModel', 'changedElsewhere', 'resolved', 'drift', 'driftCleared',
  'backup', 'jobStarted', 'jobProgress', 'jobFinished', 'gap',
];
const listeners = new Set();
let source = null;

/** Opens the stream (closing one already open); resolves once it is open, or after `wait` ms without it. The views
 * fetch their state after that: every change from then on comes as an event, none falls between the two. */
export function openEvents(wait = 3000) {
  closeEvents();
  const opened = new EventSource('/v1/events');
  source = opened;
  for (const name of eventNames) {
    opened.addEventListener(name, (message) => {
      const event = JSON.parse(message.data);
      // A backup job only reads (its record's `backup` event says what it found): no view changes at its start or
      // end, and a device backed up every second would otherwise re-render the devices view every second.
      if (event.job && event.job.kind === 'backup') return;
      for (const listener of [...listeners]) listener(event);
    });
  }
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, wait);
    opened.addEventListener('open', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** Closes the stream (signed out). */
export function closeEvents() {
  if (source) source.close();
  source = null;
}

/** Whether the stream is open now (false while the browser reopens it, or after the daemon refused it). */
export function eventsOpen() {
  return source !== null && source.readyState === EventSource.OPEN;
}

/** Calls `listener(event)` for each event until the returned function is called. */
export function onEvent(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
