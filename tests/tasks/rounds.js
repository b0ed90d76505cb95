/* A multi-round game for task pages (needs task.js first). The page supplies its rounds; this runs them:
 *
 *   RoundGame({rounds: [{prompt: 'text or HTML', answer: ..., accept: (value, round) => bool}, ...],
 *              need: 5,              // correct answers needed to win (default: all)
 *              label: 'Answer',      // the answer box's label
 *              button: 'Submit',     // the submit button's name
 *              choices: false});     // true: each round shows its `options` as buttons instead of a box
 *
 * The score line reads "<score> Score <correct> Correct <round>/<total>" (a progress line, not a success).
 * Every answer moves to the next round (one try each). After the last round the page shows
 * "Game over: N of T correct" and records success when N >= need (TaskRecord.record).
 */
function RoundGame(cfg) {
  var rounds = cfg.rounds, need = cfg.need || rounds.length, i = 0, correct = 0, score = 0;
  var root = document.getElementById('game');
  root.innerHTML = '<p id="score" aria-live="polite"></p><div id="prompt"></div>' +
    (cfg.choices ? '<div id="choices" role="group" aria-label="Choices"></div>'
      : '<form id="f" autocomplete="off"><label for="answer">' + cfg.label + '</label><input id="answer" name="answer">' +
        ' <button type="submit">' + cfg.button + '</button></form>') +
    '<p id="feedback" role="status"></p>';
  var $ = function (id) { return document.getElementById(id); };
  function show() {
    $('score').textContent = score + ' Score ' + correct + ' Correct ' + Math.min(i + 1, rounds.length) + '/' + rounds.length;
    if (i >= rounds.length) return;
    $('prompt').innerHTML = '<h2>Round ' + (i + 1) + ' of ' + rounds.length + '</h2>' + rounds[i].prompt;
    if (cfg.choices) {
      $('choices').innerHTML = '';
      rounds[i].options.forEach(function (o) {
        var b = document.createElement('button'); b.type = 'button'; b.textContent = o;
        b.addEventListener('click', function () { answer(o); }); $('choices').appendChild(b);
      });
    } else { $('answer').value = ''; }
  }
  function answer(value) {
    if (i >= rounds.length) return;
    var r = rounds[i], ok = false;
    try { ok = !!r.accept(String(value), r); } catch (e) { ok = false; }
    if (ok) { correct++; score += 10; $('feedback').textContent = 'Round ' + (i + 1) + ': correct.'; }
    else { $('feedback').textContent = 'Round ' + (i + 1) + ': "' + String(value).slice(0, 40) + '" is wrong.'; }
    i++;
    if (i >= rounds.length) {
      show();
      $('prompt').innerHTML = '<h2>Game over</h2><p>You answered ' + correct + ' of ' + rounds.length +
        ' correctly' + (correct >= need ? '. Well done!' : '; ' + need + ' were needed.') + '</p>';
      if (cfg.choices) $('choices').remove(); else $('f').remove();
      TaskRecord.record(correct >= need, correct + ' of ' + rounds.length + ' correct');
      return;
    }
    show();
  }
  if (!cfg.choices) $('f').addEventListener('submit', function (e) { e.preventDefault(); answer($('answer').value); });
  show();
  return {answers: function () { return rounds.map(function (r) { return r.answer; }); }};
}
