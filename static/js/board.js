// The Ludo board as SVG, drawn from the server's snapshot. No rules live here: the server
// sends the legal moves; this module draws them and reports which one a person picks.
//
//   import { Board } from "/static/js/board.js";
//   const board = new Board(svgElement, config, { onChoose: (move) => ... });
//   board.render(snapshot, { interactive: true });
//
// `config` describes the board (sent by the page, from the rule set): size (52 or 40),
// quarter, last_track, goal, safe and stars (absolute track squares), colours and marks by
// corner, bonus squares by absolute square. Coordinates follow docs/rules.md: a pawn's progress
// counts from its own start square; -1 is the yard, `goal` is home.
import { colourName, fmt, gettext } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const MARKS = { red: "dot", blue: "diamond", green: "bar", yellow: "triangle" };

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// Corner 0's cells, in grid units (cell x, y); other corners are quarter turns clockwise.
const LAYOUTS = {
  52: {
    n: 15,
    quarter: [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6], [6, 5], [6, 4], [6, 3], [6, 2], [6, 1], [6, 0], [7, 0], [8, 0]],
    column: [[1, 7], [2, 7], [3, 7], [4, 7], [5, 7]],
    yard: { x: 0, y: 0, w: 6 },
    spots: [[1.9, 1.9], [4.1, 1.9], [1.9, 4.1], [4.1, 4.1]],
    // Home: the corner's triangle in the middle, one spot per pawn.
    home: [[6.28, 6.9], [6.28, 7.5], [6.28, 8.1], [6.85, 7.5]],
    centre: { x: 6, y: 6, w: 3 },
    die: [3, 3], // between the yard's spots: the die of the player to act

  },
  40: {
    n: 11,
    quarter: [[0, 4], [1, 4], [2, 4], [3, 4], [4, 4], [4, 3], [4, 2], [4, 1], [4, 0], [5, 0]],
    column: [[1, 5], [2, 5], [3, 5], [4, 5]],
    // The yard fills the corner's free 4x4 area (less a margin): pawns big enough to tap.
    yard: { x: 0, y: 0, w: 3.6 },
    spots: [[0.95, 0.95], [2.65, 0.95], [0.95, 2.65], [2.65, 2.65]],
    home: null,
    centre: { x: 5, y: 5, w: 1 },
    die: [1.8, 1.8], // between the yard's spots
    dieScale: 0.72,

  },
};

// A point (in SVG units) turned `turns` quarter turns clockwise about the middle of an n grid.
function turn([x, y], turns, n) {
  let px = x;
  let py = y;
  for (let i = 0; i < ((turns % 4) + 4) % 4; i += 1) [px, py] = [n - py, px];
  return [px, py];
}

function cellCentre([cx, cy]) {
  return [cx + 0.5, cy + 0.5];
}

/** The geometry of one board: where each track square, home square and yard spot is. */
export class Geometry {
  constructor(config) {
    this.config = config;
    this.size = (config.size ?? config.track_len) === 40 ? 40 : 52;
    const layout = LAYOUTS[this.size];
    this.layout = layout;
    this.n = layout.n;
    this.quarter = config.quarter || (this.size === 40 ? 10 : 13);
    this.lastTrack = config.last_track ?? (this.size === 40 ? 39 : 50);
    this.goal = config.goal ?? (this.size === 40 ? 43 : 56);
    this.track = [];
    for (let c = 0; c < 4; c += 1) {
      for (const cell of layout.quarter) this.track.push(turn(cellCentre(cell), c, this.n));
    }
  }

  /** The centre of absolute track square `s`. */
  square(s) {
    return this.track[((s % this.size) + this.size) % this.size];
  }

  /** The absolute track square of `corner`'s pawn at `progress`, or -1 off the track. */
  absolute(corner, progress) {
    if (progress < 0 || progress > this.lastTrack) return -1;
    return (corner * this.quarter + progress) % this.size;
  }

  /** Where `corner`'s pawn `pawn` stands at `progress`, as an SVG point. */
  point(corner, pawn, progress) {
    const { layout, n } = this;
    if (progress < 0) return turn(layout.spots[pawn % 4], corner, n);
    if (progress <= this.lastTrack) return this.square(this.absolute(corner, progress));
    const k = progress - this.lastTrack - 1;
    if (k < layout.column.length) return turn(cellCentre(layout.column[k]), corner, n);
    return turn(layout.home[pawn % 4], corner, n);
  }

  /** A key shared by pawns that stand in the same place (pawns at home each have a spot). */
  placeKey(corner, pawn, progress) {
    if (progress < 0) return `y${corner}.${pawn}`;
    if (progress <= this.lastTrack) return `t${this.absolute(corner, progress)}`;
    if (progress - this.lastTrack - 1 < this.layout.column.length) return `c${corner}.${progress}`;
    return `h${corner}.${pawn}`;
  }
}

function markShape(mark, parent, r, cls = "mark") {
  // A colour's shape mark, centred on 0,0 with radius about r.
  if (mark === "dot") return el("circle", { r: r * 0.55, class: cls }, parent);
  if (mark === "diamond") {
    return el("polygon", { points: `0,${-r} ${r},0 0,${r} ${-r},0`, class: cls }, parent);
  }
  if (mark === "bar") {
    return el("rect", { x: -r, y: -r * 0.32, width: 2 * r, height: r * 0.64, rx: r * 0.12, class: cls }, parent);
  }
  const h = r * 0.95;
  return el("polygon", { points: `0,${-h} ${h * 0.95},${h * 0.72} ${-h * 0.95},${h * 0.72}`, class: cls }, parent);
}

function star(parent, [x, y], r) {
  const pts = [];
  for (let i = 0; i < 10; i += 1) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const rr = i % 2 === 0 ? r : r * 0.45;
    pts.push(`${(x + rr * Math.cos(a)).toFixed(3)},${(y + rr * Math.sin(a)).toFixed(3)}`);
  }
  return el("polygon", { points: pts.join(" "), class: "star" }, parent);
}

const BONUS_LABEL = { double: "×2", control: "⚄", plus: "+1" };
const BONUS_NAME = { double: gettext("Double roll"), control: gettext("Dice control"), shield: gettext("Shield"), plus: gettext("+1 extra roll") };

/** Draws the board into `svg` and keeps its pawns in step with each snapshot. */
export class Board {
  constructor(svg, config, { onChoose = null, label = gettext("Ludo board") } = {}) {
    this.svg = svg;
    this.config = config;
    this.geo = new Geometry(config);
    this.onChoose = onChoose;
    this.colours = config.colours || ["red", "green", "yellow", "blue"];
    this.marks = config.marks || this.colours.map((c) => MARKS[c]);
    this.moves = [];
    this.interactive = false;
    this.pawnNodes = new Map();
    this.yards = [];
    svg.setAttribute("viewBox", `0 0 ${this.geo.n} ${this.geo.n}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
    svg.classList.add("ludo-board", `size-${this.geo.size}`);
    svg.replaceChildren();
    this.drawStatic();
    this.turnLayer = el("g", { class: "turn-marker", "aria-hidden": "true" }, svg);
    this.pawnLayer = el("g", { class: "pawns" }, svg);
    // Rings above the pawns: a ring on a rival's pawn (a capture) must take the click.
    this.targetLayer = el("g", { class: "targets" }, svg);
    this.dragLayer = el("g", { class: "drag" }, svg);
    this.bindPointer();
  }

  colour(corner) {
    return this.colours[corner];
  }

  drawStatic() {
    const { geo, svg } = this;
    const { n, layout } = geo;
    const g = el("g", { class: "static", "aria-hidden": "true" }, svg);
    el("rect", { x: 0, y: 0, width: n, height: n, rx: 0.3, class: "board-bg" }, g);
    // Yards.
    for (let c = 0; c < 4; c += 1) {
      const { x, y, w } = layout.yard;
      const [ax, ay] = turn([x, y], c, n);
      const [bx, by] = turn([x + w, y + w], c, n);
      const rx = Math.min(ax, bx);
      const ry = Math.min(ay, by);
      const yard = el("g", { class: `yard c-${this.colour(c)}`, "data-corner": c }, g);
      this.yards[c] = yard;
      el("rect", { x: rx + 0.06, y: ry + 0.06, width: w - 0.12, height: w - 0.12, rx: 0.25, class: "yard-bg" }, yard);
      if (geo.size === 52) {
        el("rect", { x: rx + 0.9, y: ry + 0.9, width: w - 1.8, height: w - 1.8, rx: 0.35, class: "yard-inner" }, yard);
      }
      for (let i = 0; i < 4; i += 1) {
        const [sx, sy] = geo.point(c, i, -1);
        el("circle", { cx: sx, cy: sy, r: geo.size === 52 ? 0.62 : 0.52, class: "spot" }, yard);
      }
    }
    // Track squares.
    const safe = new Set(this.config.safe || []);
    const stars = new Set(this.config.stars || []);
    const bonus = this.config.bonus || {};
    for (let s = 0; s < geo.size; s += 1) {
      const [cx, cy] = geo.square(s);
      const start = s % geo.quarter === 0 ? s / geo.quarter : -1;
      const cls = ["square"];
      if (start >= 0) cls.push("start", `c-${this.colour(start)}`);
      if (safe.has(s)) cls.push("safe");
      el("rect", { x: cx - 0.5, y: cy - 0.5, width: 1, height: 1, class: cls.join(" ") }, g);
      if (start >= 0) {
        const m = el("g", { transform: `translate(${cx} ${cy})`, class: "start-mark" }, g);
        markShape(this.marks[start], m, 0.26);
      } else if (stars.has(s)) {
        star(g, [cx, cy], 0.36);
      }
      if (bonus[s]) {
        const b = el("g", { class: `bonus bonus-${bonus[s]}` }, g);
        el("rect", { x: cx - 0.42, y: cy - 0.42, width: 0.84, height: 0.84, rx: 0.15 }, b);
        if (bonus[s] === "shield") {
          // Drawn, not a character: few fonts have U+26E8, and a missing glyph shows a box.
          el("path", { d: `M${cx} ${cy - 0.3}l.25 .1v.14c0 .17-.1 .29-.25 .36c-.15-.07-.25-.19-.25-.36v-.14z` }, b);
        } else {
          const t = el("text", { x: cx, y: cy + 0.14, "text-anchor": "middle" }, b);
          t.textContent = BONUS_LABEL[bonus[s]] || "?";
        }
        el("title", {}, b).textContent = BONUS_NAME[bonus[s]] || bonus[s];
      }
    }
    // Arrows into each start square, showing the direction of play.
    for (let c = 0; c < 4; c += 1) {
      const before = geo.square(geo.absolute(c, 0) - 1);
      const start = geo.square(geo.absolute(c, 0));
      const [ax, ay] = [(before[0] + start[0]) / 2, (before[1] + start[1]) / 2];
      const ang = (Math.atan2(start[1] - before[1], start[0] - before[0]) * 180) / Math.PI;
      if (Math.hypot(start[0] - before[0], start[1] - before[1]) > 1.2) continue;
      el("path", { d: "M-0.14,-0.12 L0.1,0 L-0.14,0.12", class: "arrow", transform: `translate(${ax} ${ay}) rotate(${ang})` }, g);
    }
    // Home columns.
    for (let c = 0; c < 4; c += 1) {
      for (const cell of layout.column) {
        const [cx, cy] = turn(cellCentre(cell), c, n);
        el("rect", { x: cx - 0.5, y: cy - 0.5, width: 1, height: 1, class: `square column c-${this.colour(c)}` }, g);
      }
    }
    // The middle: one triangle per corner, pointing at its home column.
    const { x, y, w } = layout.centre;
    const mid = [x + w / 2, y + w / 2];
    for (let c = 0; c < 4; c += 1) {
      const a = turn([x, y], c, n);
      const b = turn([x, y + w], c, n);
      el("polygon", { points: `${a[0]},${a[1]} ${mid[0]},${mid[1]} ${b[0]},${b[1]}`, class: `home c-${this.colour(c)}` }, g);
    }
  }

  /** Draws `snapshot`'s pawns, and its legal moves when `interactive`. */
  render(snapshot, { interactive = false, moves = null, last = null, turn = null, animate = false } = {}) {
    const { geo } = this;
    this.drawTurn(turn);
    const walks = [];
    this.snapshot = snapshot;
    this.interactive = interactive;
    this.moves = moves || (interactive ? snapshot.legal || [] : []);
    const movable = new Map();
    const numbered = new Set(this.moves.map((m) => `${m.corner}.${m.pawn}`)).size > 1;
    for (const m of this.moves) movable.set(`${m.corner}.${m.pawn}`, m);
    // Power: shields are [given by, pawn's corner, pawn].
    const shielded = new Set((snapshot.shields || []).map(([, c, p]) => `${c}.${p}`));
    // Group pawns by place so that several on one square sit side by side.
    const places = new Map();
    const pawns = snapshot.pawns || [];
    pawns.forEach((row, corner) => {
      (row || []).forEach((progress, pawn) => {
        const key = geo.placeKey(corner, pawn, progress);
        if (!places.has(key)) places.set(key, []);
        places.get(key).push({ corner, pawn, progress });
      });
    });
    const seen = new Set();
    for (const group of places.values()) {
      group.forEach((p, i) => {
        const id = `${p.corner}.${p.pawn}`;
        seen.add(id);
        let [x, y] = geo.point(p.corner, p.pawn, p.progress);
        let scale = 1;
        if (p.progress > geo.lastTrack + geo.layout.column.length) scale = 0.62; // home
        else if (p.progress < 0) scale = geo.size === 52 ? 1.3 : 1.15; // the yards
        if (group.length > 1) {
          const off = group.length === 2 ? [[-0.2, -0.1], [0.2, 0.1]] : [[-0.2, -0.2], [0.2, -0.2], [-0.2, 0.2], [0.2, 0.2]];
          const [dx, dy] = off[i % off.length];
          x += dx;
          y += dy;
          scale = 0.72;
        }
        const node = this.pawnNode(p.corner, p.pawn);
        const to = `translate(${x}px, ${y}px) scale(${scale})`;
        const before = node.dataset.progress === undefined ? null : Number(node.dataset.progress);
        if (animate && before !== null && before !== p.progress && node.style.transform) {
          walks.push({ node, corner: p.corner, pawn: p.pawn, from: before, to: p.progress, start: node.style.transform, end: to });
        }
        node.style.transform = to;
        node.dataset.progress = p.progress;
        const m = movable.get(id);
        node.classList.toggle("movable", Boolean(m));
        node.classList.toggle("shielded", shielded.has(id));
        node.classList.toggle("last", Boolean(last && last.corner === p.corner && last.pawn === p.pawn));
        const num = node.querySelector(".num");
        num.textContent = m && numbered ? String(p.pawn + 1) : "";
        node.classList.toggle("numbered", Boolean(m && numbered));
        const label = this.pawnLabel(p.corner, p.pawn, p.progress, Boolean(m));
        node.setAttribute("aria-label", shielded.has(id) ? fmt(gettext("%(pawn)s, shielded"), { pawn: label }) : label);
        if (m) this.pawnLayer.appendChild(node); // lit pawns on top
      });
    }
    for (const [id, node] of this.pawnNodes) {
      if (!seen.has(id)) {
        node.remove();
        this.pawnNodes.delete(id);
      }
    }
    this.drawTargets(numbered);
    return animate ? this.walk(walks) : 0;
  }

  /** Lights the corner to act and draws its die and turn clock beside its yard.
   * `turn`: { corner, face, clock } with clock the share of the turn left (0..1) or null. */
  drawTurn(t) {
    this.yards.forEach((y, c) => y.classList.toggle("active", Boolean(t) && t.corner === c));
    const layer = this.turnLayer;
    if (!t || t.corner === null || t.corner === undefined) {
      layer.replaceChildren();
      this.turnKey = null;
      return;
    }
    const key = `${t.corner}:${t.face}:${t.rolling ? 1 : 0}:${t.tap ? 1 : 0}`;
    if (this.turnKey !== key) {
      this.turnKey = key;
      layer.replaceChildren();
      const [x, y] = turn(this.geo.layout.die, t.corner, this.geo.n);
      const g = el("g", { class: `turn-die c-${this.colour(t.corner)}${t.rolling ? " rolling" : ""}${t.tap ? " tap" : ""}`, transform: `translate(${x} ${y}) scale(${this.geo.layout.dieScale || 1})`, "data-corner": t.corner }, layer);
      el("circle", { r: 0.92, class: "clock-track" }, g);
      this.clockRing = el("circle", { r: 0.92, class: "clock-ring", pathLength: 100, transform: "rotate(-90)" }, g);
      const die = el("g", { class: "mini-die", transform: "scale(.62)" }, g);
      // Not rolled yet: a blank face, or "?" in the player's colour when it is theirs to roll.
      dieFace(die, t.face, t.tap ? "?" : "");
    }
    this.setClock(t.clock);
  }

  /** The turn clock ring: `share` of the turn left (null: no clock). */
  setClock(share) {
    if (!this.clockRing) return;
    const on = typeof share === "number";
    this.clockRing.classList.toggle("off", !on);
    const left = on ? Math.max(0, Math.min(1, share)) : 0;
    this.clockRing.setAttribute("stroke-dasharray", `${(left * 100).toFixed(2)} 100`);
    this.clockRing.classList.toggle("low", on && left <= 0.2);
  }

  /** Animates pawns from where they stood to where they stand now: a pawn that moved on
   * walks square by square; a captured one is carried back to its yard once the capturer has
   * landed. Returns how long it all takes (ms); nothing moves when motion is reduced. */
  walk(walks) {
    if (!walks.length || !globalThis.matchMedia || matchMedia("(prefers-reduced-motion: reduce)").matches) return 0;
    const { geo } = this;
    const STEP = 150;
    let longest = 0;
    const movers = walks.filter((w) => w.to >= 0);
    for (const w of movers) {
      const frames = [{ transform: w.start }];
      const squares = [];
      if (w.from >= 0 && w.to > w.from && w.to - w.from <= 13) {
        for (let p = w.from + 1; p < w.to; p += 1) {
          const [x, y] = geo.point(w.corner, w.pawn, p);
          frames.push({ transform: `translate(${x}px, ${y - 0.18}px) scale(1)` }, { transform: `translate(${x}px, ${y}px) scale(1)` });
          squares.push(p);
        }
      }
      squares.push(w.to);
      frames.push({ transform: w.end });
      w.node.dataset.walk = squares.join(" ");
      const ms = Math.max(STEP * 2, STEP * squares.length);
      w.node.animate(frames, { duration: ms, easing: "linear" });
      longest = Math.max(longest, ms);
    }
    for (const w of walks.filter((x) => x.to < 0)) {
      // The victim stays where it was hit until the capturer lands, then flies home.
      const [x, y] = this.middle(w.start);
      const frames = [
        { transform: w.start, offset: 0 },
        { transform: w.start, offset: longest ? longest / (longest + 500) : 0 },
        { transform: `translate(${x}px, ${y - 1.2}px) scale(1.2)`, offset: longest ? (longest + 200) / (longest + 500) : 0.4 },
        { transform: w.end, offset: 1 },
      ];
      w.node.dataset.walk = "yard";
      w.node.classList.add("captured");
      const anim = w.node.animate(frames, { duration: longest + 500, easing: "ease-in-out" });
      anim.onfinish = () => w.node.classList.remove("captured");
      longest = Math.max(longest, longest + 500);
    }
    return longest;
  }

  middle(transform) {
    const m = /translate\(([-\d.]+)px, ([-\d.]+)px\)/.exec(transform) || [0, 0, 0];
    return [(Number(m[1]) + this.geo.n / 2) / 2, (Number(m[2]) + this.geo.n / 2) / 2];
  }

  pawnLabel(corner, pawn, progress, movable) {
    const values = { colour: colourName(this.colour(corner)), pawn: pawn + 1, place: describePlace(this.geo, corner, progress) };
    return fmt(movable ? gettext("%(colour)s pawn %(pawn)s, %(place)s, can move") : gettext("%(colour)s pawn %(pawn)s, %(place)s"), values);
  }

  pawnNode(corner, pawn) {
    const id = `${corner}.${pawn}`;
    let node = this.pawnNodes.get(id);
    if (node) {
      if (!node.isConnected) this.pawnLayer.appendChild(node);
      return node;
    }
    node = el("g", { class: `pawn c-${this.colour(corner)}`, "data-corner": corner, "data-pawn": pawn, role: "img" }, this.pawnLayer);
    const body = el("g", { class: "body" }, node);
    el("circle", { r: 0.47, class: "halo" }, body);
    el("ellipse", { cx: 0, cy: 0.31, rx: 0.34, ry: 0.11, class: "foot" }, body);
    el("path", { d: "M-0.31,0.3 Q-0.24,-0.02 -0.11,-0.1 L0.11,-0.1 Q0.24,-0.02 0.31,0.3 Z", class: "skirt" }, body);
    el("circle", { cy: -0.15, r: 0.23, class: "head" }, body);
    const mark = el("g", { transform: "translate(0 -0.15)" }, body);
    markShape(this.marks[corner], mark, 0.14, "mark");
    el("text", { class: "num", x: 0.34, y: -0.26, "text-anchor": "middle" }, node);
    this.pawnNodes.set(id, node);
    return node;
  }

  drawTargets(numbered) {
    const { geo } = this;
    this.targetLayer.replaceChildren();
    const byPlace = new Map();
    this.moves.forEach((m, index) => {
      const key = geo.placeKey(m.corner, m.pawn, m.to).replace(/^h(\d)\.\d$/, "h$1");
      if (!byPlace.has(key)) byPlace.set(key, { m, index, nums: [], ids: [] });
      byPlace.get(key).nums.push(m.pawn + 1);
      byPlace.get(key).ids.push(`${m.corner}.${m.pawn}`);
    });
    for (const { m, index, nums, ids } of byPlace.values()) {
      const [x, y] = geo.point(m.corner, m.pawn, m.to);
      const cls = ["target"];
      if (m.captures && m.captures.length) cls.push("captures");
      if (m.safe) cls.push("safe");
      if (m.home) cls.push("home");
      const t = el("g", { class: cls.join(" "), transform: `translate(${x} ${y})`, "data-move": index, "data-pawns": ids.join(" ") }, this.targetLayer);
      el("circle", { r: 0.44, class: "ring" }, t);
      if (numbered) {
        const label = el("text", { y: 0.16, "text-anchor": "middle", class: "target-num" }, t);
        label.textContent = nums.length > 2 ? String(nums[0]) : nums.join("/");
      }
    }
  }

  moveAt(target) {
    const pawn = target.closest(".pawn");
    if (pawn) {
      const corner = Number(pawn.dataset.corner);
      const p = Number(pawn.dataset.pawn);
      return this.moves.find((m) => m.corner === corner && m.pawn === p) || null;
    }
    const ring = target.closest(".target");
    if (ring) return this.moves[Number(ring.dataset.move)] || null;
    // A tap anywhere in a yard brings out one of its pawns: the spots alone are small.
    const yard = target.closest(".yard");
    if (yard) return this.moves.find((m) => m.corner === Number(yard.dataset.corner) && m.from < 0) || null;
    return null;
  }

  toSvgPoint(evt) {
    const pt = this.svg.createSVGPoint();
    pt.x = evt.clientX;
    pt.y = evt.clientY;
    const ctm = this.svg.getScreenCTM();
    return ctm ? pt.matrixTransform(ctm.inverse()) : pt;
  }

  bindPointer() {
    let drag = null;
    this.svg.addEventListener("pointerdown", (evt) => {
      if (!this.interactive) return;
      const m = this.moveAt(evt.target);
      if (!m) return;
      const fromPawn = Boolean(evt.target.closest(".pawn"));
      drag = { m, fromPawn, x: evt.clientX, y: evt.clientY, moved: false, ghost: null };
      if (fromPawn) this.svg.setPointerCapture?.(evt.pointerId);
      evt.preventDefault();
    });
    this.svg.addEventListener("pointermove", (evt) => {
      if (!drag || !drag.fromPawn) return;
      if (!drag.moved && Math.hypot(evt.clientX - drag.x, evt.clientY - drag.y) < 6) return;
      drag.moved = true;
      const p = this.toSvgPoint(evt);
      if (!drag.ghost) {
        drag.ghost = this.pawnNodes.get(`${drag.m.corner}.${drag.m.pawn}`).cloneNode(true);
        drag.ghost.classList.add("ghost");
        this.dragLayer.appendChild(drag.ghost);
      }
      drag.ghost.style.transform = `translate(${p.x}px, ${p.y}px)`;
    });
    const end = (evt) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (d.ghost) d.ghost.remove();
      if (evt.type === "pointercancel") return;
      if (!d.moved) {
        this.choose(d.m);
        return;
      }
      // Dropped: the move whose target is nearest the drop point, if close enough.
      const p = this.toSvgPoint(evt);
      let best = null;
      let bestDist = 0.75;
      for (const m of this.moves) {
        if (m.corner !== d.m.corner || m.pawn !== d.m.pawn) continue;
        const [x, y] = this.geo.point(m.corner, m.pawn, m.to);
        const dist = Math.hypot(p.x - x, p.y - y);
        if (dist < bestDist) {
          best = m;
          bestDist = dist;
        }
      }
      if (best) this.choose(best);
    };
    this.svg.addEventListener("pointerup", end);
    this.svg.addEventListener("pointercancel", end);
  }

  choose(m) {
    if (this.interactive && this.onChoose) this.onChoose(m);
  }
}

/** Where a pawn is, in words: "in the yard", "on square 14 (safe)", "home column 2 of 5".
 * `form`: "at" (where it stands), "from" (where a move leaves), "to" (where it arrives). */
export function describePlace(geo, corner, progress, form = "at") {
  if (progress < 0) return form === "from" ? gettext("out of the yard") : gettext("in the yard");
  if (progress <= geo.lastTrack) {
    const s = geo.absolute(corner, progress);
    const safe = (geo.config.safe || []).includes(s);
    if (form === "from") {
      if (progress === 0) return fmt(gettext("from square %(square)s (its start)"), { square: s });
      return fmt(safe ? gettext("from square %(square)s (safe)") : gettext("from square %(square)s"), { square: s });
    }
    if (form === "to") return fmt(gettext("to square %(square)s"), { square: s });
    if (progress === 0) return fmt(gettext("on square %(square)s (its start)"), { square: s });
    return fmt(safe ? gettext("on square %(square)s (safe)") : gettext("on square %(square)s"), { square: s });
  }
  const cols = geo.layout.column.length;
  const k = progress - geo.lastTrack;
  if (k > cols) return gettext("home");
  const values = { square: k, count: cols };
  const row = geo.size === 40;
  if (form === "from") return fmt(row ? gettext("from the home row, square %(square)s of %(count)s") : gettext("from the home column, square %(square)s of %(count)s"), values);
  if (form === "to") return fmt(row ? gettext("into the home row, square %(square)s of %(count)s") : gettext("into the home column, square %(square)s of %(count)s"), values);
  return fmt(row ? gettext("in the home row, square %(square)s of %(count)s") : gettext("in the home column, square %(square)s of %(count)s"), values);
}

const PIPS = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

/** Draws a die face (0 or undefined: blank) into `svg`. */
export function drawDie(svg, face) {
  svg.setAttribute("viewBox", "-1 -1 2 2");
  svg.replaceChildren();
  svg.dataset.face = String(face || "");
  dieFace(svg, face);
}

function dieFace(parent, face, blank = "?") {
  el("rect", { x: -0.92, y: -0.92, width: 1.84, height: 1.84, rx: 0.32, class: "die-face" }, parent);
  for (const [x, y] of PIPS[face] || []) el("circle", { cx: x * 0.48, cy: y * 0.48, r: 0.17, class: "pip" }, parent);
  if (!PIPS[face] && blank) {
    const q = el("text", { x: 0, y: 0.3, "text-anchor": "middle", class: "die-blank" }, parent);
    q.textContent = blank;
  }
}

/** A colour's shape mark as a small inline SVG, for seat lists and tables. */
export function markIcon(colour, mark) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "-1 -1 2 2");
  svg.setAttribute("class", `mark-icon c-${colour}`);
  svg.setAttribute("aria-hidden", "true");
  el("circle", { r: 0.95, class: "swatch" }, svg);
  markShape(mark || MARKS[colour], svg, 0.5, "mark");
  return svg;
}
