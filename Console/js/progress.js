// A job's live progress: phase and a bar of done / total.
import { h, replace } from './dom.js';
import { statusWords } from './format.js';

/** A progress element and the function that updates it from a job. */
export function progressView() {
  const bar = h('progress', { max: 1, value: 0 });
  const text = h('span', {}, 'starting…');
  const el = h('div.progress', { role: 'group', 'aria-label': 'Progress' }, bar, ' ', text);
  return {
    el,
    update(job) {
      const p = job.progress;
      if (job.state !== 'running') {
        bar.max = 1;
        bar.value = 1;
        replace(text, 'finished');
      } else if (p) {
        bar.max = Math.max(1, p.total);
        bar.value = p.done;
        replace(text, `${statusWords(p.phase)}: ${p.done} / ${p.total}`);
      }
    },
  };
}
