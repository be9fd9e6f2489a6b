#!/usr/bin/env node
'use strict';
// The ppconf adapter for the Node.js workflow runtime in workflow.js: the JSON Lines adapter
// protocol (docs/protocol.md) on stdin and stdout. Run the catalog against it with
//
//   ppconf run --adapter 'cmd:node examples/node/adapter.js'
//
// One request per line in, one response per line out, nothing else on stdout (logs go to
// stderr). Plain Node.js, no npm dependencies.

const readline = require('readline');
const { Rejection, loadPack, validate, Workflow } = require('./workflow');

const PROTOCOL = 1;

/** This runtime does not do an operation: answered as {skipped: {reason}}. */
class Skip extends Error {}

/** The request itself is wrong (unknown op or session): a protocol error, not a refusal. */
class BadRequest extends Error {}

// The kit's `pack` is {text, format, document}. JSON text is parsed here, as the runtime's users
// parse it. Node has no YAML parser, so for YAML the kit's own parse (`document`) is used; it is
// null when the kit's loader refused the text (duplicate keys, say), and then there is nothing
// to load.
function readPack(pack) {
  if (pack.format === 'json') {
    try {
      return JSON.parse(pack.text);
    } catch (error) {
      throw new Rejection('pack-rejected', `not JSON: ${error.message}`);
    }
  }
  if (pack.document !== null && typeof pack.document === 'object') return pack.document;
  throw new Rejection('pack-rejected', 'this YAML text cannot be read');
}

// Sessions by the id given to the kit; each has its own clock, which only advance_clock moves
// (the kit controls time, so wall-time budgets are exact).
const sessions = new Map();
let lastSession = 0;
let stopping = false; // set by shutdown
let stopped = false; // its answer is being written

function keep(session, time) {
  lastSession += 1;
  const id = `s${lastSession}`;
  sessions.set(id, { session, time });
  return { session: id };
}

function find(request) {
  const entry = sessions.get(request.session);
  if (!entry) throw new BadRequest(`no session ${JSON.stringify(request.session)}`);
  return entry;
}

function startSession(pack, snapshot) {
  const time = { now: 0 };
  const clock = () => time.now;
  const workflow = Workflow.compile(readPack(pack));
  const session = snapshot === undefined ? workflow.start({ clock }) : workflow.restore(snapshot, { clock });
  return keep(session, time);
}

const ops = {
  hello(request) {
    if (request.protocol !== PROTOCOL) throw new Rejection('protocol-unsupported', `this adapter speaks protocol ${PROTOCOL}`);
    return {
      protocol: PROTOCOL,
      runtime: { name: 'node-workflow', version: '0.2.0', language: 'javascript' },
      claims: { workflow: 2, loops: 2 }, // compositions are not claimed, so not in the headline
      extensions: [],
    };
  },
  load(request) {
    loadPack(readPack(request.pack));
    return {};
  },
  validate(request) {
    let pack;
    try {
      pack = readPack(request.pack);
    } catch (error) {
      return { diagnostics: [{ code: 'schema', severity: 'error', path: null }] };
    }
    const diagnostics = validate(pack).map(({ code, severity, path }) => ({ code, severity, path }));
    return { diagnostics };
  },
  start: (request) => startSession(request.pack),
  restore: (request) => startSession(request.pack, request.snapshot),
  send(request) {
    return { transition: find(request).session.send(request.event, request.source) };
  },
  set_artifact(request) {
    find(request).session.setArtifact(request.name, request.value);
    return {};
  },
  tool_calls(request) {
    find(request).session.recordToolCalls(request.count);
    return {};
  },
  advance_clock(request) {
    find(request).time.now += request.seconds;
    return {};
  },
  state: (request) => ({ state: find(request).session.state() }),
  snapshot: (request) => ({ snapshot: find(request).session.snapshot() }),
  close(request) {
    find(request);
    sessions.delete(request.session);
    return {};
  },
  run_composition() {
    throw new Skip('this runtime does not run compositions');
  },
  run_state() {
    throw new Skip('this runtime does not run compositions');
  },
  shutdown() {
    stopping = true;
    return {};
  },
};

function answer(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { id: null, ok: false, error: { code: 'bad-request', message: `not JSON: ${error.message}` } };
  }
  const id = request !== null && Number.isInteger(request.id) ? request.id : null;
  const op = request !== null && Object.prototype.hasOwnProperty.call(ops, request.op) ? ops[request.op] : null;
  if (id === null || op === null) {
    return { id, ok: false, error: { code: 'bad-request', message: 'a request needs an integer id and a known op' } };
  }
  try {
    return { id, ok: true, ...op(request) };
  } catch (error) {
    if (error instanceof Skip) return { id, skipped: { reason: error.message } };
    if (error instanceof Rejection) {
      const refusal = { code: error.code, message: error.message };
      if (error.limit) refusal.limit = error.limit;
      return { id, ok: false, error: refusal };
    }
    if (error instanceof BadRequest) return { id, ok: false, error: { code: 'bad-request', message: error.message } };
    process.stderr.write(`${error.stack}\n`); // the kit shows the tail of stderr with the fault
    return { id, ok: false, error: { code: 'internal-error', message: String(error.message) } };
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  if (stopped || line.trim() === '') return;
  const text = `${JSON.stringify(answer(line))}\n`;
  if (!stopping) {
    process.stdout.write(text);
    return;
  }
  // shutdown: answer, then exit once the answer is written; lines already read go unanswered.
  stopped = true;
  input.close();
  process.stdout.write(text, () => process.exit(0));
});
