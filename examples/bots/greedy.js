#!/usr/bin/env node
// greedy.js: a Shithead bot in JavaScript (node, no packages) that plays as shedsim's
// built-in `greedy` strategy does. Written from the protocol page alone
// (docs/reference/bots.md); run it with
//
//     shedsim tournament --bot greedy-js='node examples/bots/greedy.js' --strategies greedy,random
//
// Move: in the face-down stage, turn over slot 1; otherwise play the lowest playable rank
// that has no role in the rules, as many copies as the stage holds; when only ranks with a
// role fit, one card of the lowest of them; when nothing fits, pick up. It never gambles
// and never picks up by choice.
// Swap: the strongest cards lie face up: burn ranks, then reset ranks, then the other ranks
// with a role, then the ordinary ranks; higher ranks first within each group.
"use strict";

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const VALUE = Object.fromEntries(RANKS.map((r, i) => [r, i + 2]));
// the rules' settings whose value is a set of ranks: a rank in none of them is ordinary
const RANK_SETS = ["reset", "burn", "invisible", "magic", "low", "under", "skip", "reverse"];

let rules = {};

function inSet(key, rank) {
  return (rules[key] || []).includes(rank);
}

function special(rank) {
  return RANK_SETS.some((k) => inSet(k, rank));
}

function band(rank) {
  if (inSet("burn", rank)) return 0;
  if (inSet("reset", rank)) return 1;
  if (special(rank)) return 2;
  return 3;
}

function swap(msg) {
  const cards = msg.hand.concat(msg.face_up);
  cards.sort((a, b) => band(a) - band(b) || VALUE[b] - VALUE[a]);
  return cards.slice(0, msg.face_up.length);
}

function move(msg) {
  if (msg.state.stage === "face_down") return "flip 1";
  // the ranks it may play, each with the most copies one plain play takes ("play Rxk")
  const most = new Map();
  for (const m of msg.legal) {
    const hit = /^play (\w+)x(\d+)$/.exec(m);
    if (hit) most.set(hit[1], Math.max(most.get(hit[1]) || 0, Number(hit[2])));
  }
  const lowest = (ranks) => ranks.reduce((a, b) => (VALUE[b] < VALUE[a] ? b : a));
  const plain = [...most.keys()].filter((r) => !special(r));
  if (plain.length) {
    const r = lowest(plain);
    return `play ${r}x${most.get(r)}`;
  }
  if (most.size) return `play ${lowest([...most.keys()])}x1`;
  return "pickup";
}

function say(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

let buffered = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    switch (msg.type) {
      case "hello":
        say({ type: "hello", name: "greedy (javascript example)", version: "1", protocol: 1, deterministic: true });
        break;
      case "game":
        rules = msg.rules;
        break;
      case "swap":
        say({ type: "swap", face_up: swap(msg) });
        break;
      case "move":
        say({ type: "move", move: move(msg) });
        break;
      case "bye":
        process.exit(0);
    }
  }
});
process.stdin.on("end", () => process.exit(0));
