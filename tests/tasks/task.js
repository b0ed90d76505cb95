/* The task suite's page-side recorder: every task page judges its own answer and records the outcome here.
 *
 * Include it once per page, before the page's own script:
 *   <script src="../task.js" data-task="table" data-marker="TABLE_COMPLETE"></script>
 *
 * TaskRecord.record(success, detail) writes {task, success, detail, url, ts} three ways, so that every
 * harness can read it without trusting what the agent says:
 *   - window.__taskRecord (the latest record) and window.__taskRecords (all of this page's records);
 *   - the console: "TASK_RECORD {json}", plus the task's *_COMPLETE marker when success is true;
 *   - a POST to /__task_record on the page's own origin (the arena's site server keeps them; a plain
 *     static server just refuses it, which is harmless).
 * Seeded variants: TaskRecord.seed is ?seed=N (default 1); TaskRecord.random() is a PRNG on that seed,
 * TaskRecord.pick(list, n) draws n distinct items with it.
 * Hand-written (a few lines; no library does "record a page's outcome three ways").
 */
(function () {
  var me = document.currentScript;
  var task = (me && me.dataset.task) || location.pathname.split('/').slice(-2)[0];
  var marker = (me && me.dataset.marker) || '';
  var params = new URLSearchParams(location.search);
  var seed = parseInt(params.get('seed') || '1', 10);
  if (!isFinite(seed) || seed < 0) seed = 1;
  var state = (seed * 2654435761 + 0x9e3779b9) >>> 0;
  function random() {  /* mulberry32 */
    state = (state + 0x6d2b79f5) >>> 0;
    var t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  function pick(list, n) {
    var copy = list.slice(), out = [];
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(random() * copy.length), 1)[0]);
    return out;
  }
  window.__taskRecords = [];
  window.__taskRecord = null;
  window.TaskRecord = {
    task: task, seed: seed, random: random, pick: pick,
    record: function (success, detail) {
      var rec = {task: task, success: !!success, detail: String(detail || ''), url: location.href, ts: Date.now()};
      window.__taskRecords.push(rec);
      window.__taskRecord = rec;
      var body = JSON.stringify(rec);
      console.log('TASK_RECORD ' + body);
      if (rec.success && marker) console.log(marker);
      try {
        if (!(navigator.sendBeacon && navigator.sendBeacon('/__task_record', body))) {
          fetch('/__task_record', {method: 'POST', body: body, keepalive: true}).catch(function () {});
        }
      } catch (e) { /* no site server: the console and window records remain */ }
      return rec;
    }
  };
})();
