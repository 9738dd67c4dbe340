// The replay's steps, sent compactly (games/web/replay_page.py, `compact_steps`): one array per
// field, a value per step (seq and turn as changes), every sentence once in `words`, and only
// the pawns that moved. `expandSteps` gives one object per step, as the viewer reads them.
export function expandSteps(cfg) {
  const { steps, words, phases } = cfg;
  const frames = [];
  let pawns = [];
  let seq = 0;
  let turn = 0;
  for (let i = 0; i < steps.seq.length; i += 1) {
    seq += steps.seq[i];
    turn += steps.turn[i];
    const moved = steps.pawns[i];
    if (i === 0) pawns = moved;
    else if (moved) {
      pawns = pawns.map((row) => row.slice());
      for (let k = 0; k < moved.length; k += 3) pawns[moved[k]][moved[k + 1]] = moved[k + 2];
    }
    const said = steps.said[i].map((w) => words[w]);
    frames.push({
      seq,
      turn,
      in: turn - steps.in[i],
      by: words[steps.by[i]],
      words: i === 0 ? said.slice(1) : said,
      title: said[0] || "",
      position: { pawns, to_play: steps.to_play[i], phase: phases[steps.phase[i]], die: steps.die[i] },
    });
  }
  return frames;
}

// The dice proof's rolls, one object each (`die`: the dice number a roll's face comes from).
export function expandRolls(rolls) {
  return rolls.n.map((n, i) => ({
    n,
    die: rolls.die[i] < 0 ? n : rolls.die[i],
    face: rolls.face[i],
    corner: rolls.corner[i],
    chosen: Boolean(rolls.chosen[i]),
    frame: rolls.frame[i],
  }));
}
