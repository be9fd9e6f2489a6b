'use strict';
// A small PromptPack workflow runtime (RFC 0005 workflows, RFC 0009 agent loops), in plain
// Node.js. It checks a pack, runs sessions and saves them; it does not run compositions.
//
//   const { validate, Workflow } = require('./workflow');
//   const workflow = Workflow.compile(pack);            // throws Rejection if it cannot run
//   const session = workflow.start({ clock: () => seconds });
//   session.send('Submit', 'host');                     // throws Rejection when refused
//   session.state();                                    // { current_state, status, ... }

const VERSIONS = [1, 2];
const MODES = ['internal', 'external', 'hybrid', 'composition'];
const BUDGETS = ['max_total_visits', 'max_tool_calls', 'max_wall_time_sec'];
const WORKFLOW_KEYS = ['version', 'entry', 'states', 'engine'];
const STATE_KEYS = [
  'prompt_task', 'description', 'on_event', 'persistence', 'orchestration', 'composition',
  'skills', 'terminal', 'max_visits', 'on_max_visits', 'artifacts',
];
const ARTIFACT_KEYS = ['type', 'description', 'mode'];
const EVENT_NAME = /^[A-Z][a-zA-Z0-9]*$/;

/** A refusal, with the code the conformance kit knows (and the budget limit, if one). */
class Rejection extends Error {
  constructor(code, message, limit) {
    super(message);
    this.code = code;
    this.limit = limit;
  }
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isInt = (value) => Number.isInteger(value);
const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
const pointer = (...keys) => keys.map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/**
 * Check a pack (a parsed object). Returns diagnostics {code, severity, path, message}, errors
 * first. The root and prompts are checked as far as this runtime reads them; the workflow in full.
 */
function validate(pack) {
  const found = [];
  const error = (code, path, message) => found.push({ code, severity: 'error', path, message });
  const warn = (code, path, message) => found.push({ code, severity: 'warning', path, message });
  const text = (object, key, path, required) => {
    if (!has(object, key)) {
      if (required) error('schema', path, `missing ${key}`);
    } else if (typeof object[key] !== 'string') {
      error('schema', path + pointer(key), `${key} must be a string`);
    }
  };
  const closed = (object, keys, path) => {
    for (const key of Object.keys(object)) {
      if (!keys.includes(key)) error('schema', path, `unknown property ${key}`);
    }
  };

  if (!isObject(pack)) {
    error('schema', '', 'a pack is an object');
    return found;
  }
  for (const key of ['id', 'name', 'version']) text(pack, key, '', true);
  if (!isObject(pack.template_engine)) {
    error('schema', has(pack, 'template_engine') ? '/template_engine' : '', 'template_engine must be an object');
  } else {
    for (const key of ['version', 'syntax']) text(pack.template_engine, key, '/template_engine', true);
  }
  const prompts = isObject(pack.prompts) ? pack.prompts : {};
  if (!isObject(pack.prompts) || Object.keys(prompts).length === 0) {
    error('schema', has(pack, 'prompts') ? '/prompts' : '', 'prompts must be a non-empty object');
  }
  for (const [key, prompt] of Object.entries(prompts)) {
    const path = pointer('prompts', key);
    if (!isObject(prompt)) {
      error('schema', path, 'a prompt is an object');
      continue;
    }
    for (const field of ['id', 'name', 'version', 'system_template']) text(prompt, field, path, true);
    if (prompt.system_template === '') error('schema', path + '/system_template', 'system_template is empty');
  }
  if (has(pack, 'workflow')) {
    const compositions = isObject(pack.compositions) ? pack.compositions : {};
    checkWorkflow(pack.workflow, prompts, compositions, { error, warn, text, closed });
  }
  return found.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

function checkWorkflow(workflow, prompts, compositions, report) {
  const { error, warn, text, closed } = report;
  if (!isObject(workflow)) {
    error('schema', '/workflow', 'workflow must be an object');
    return;
  }
  closed(workflow, WORKFLOW_KEYS, '/workflow');
  if (!has(workflow, 'version')) error('schema', '/workflow', 'missing version');
  else if (!isInt(workflow.version)) error('schema', '/workflow/version', 'version must be an integer');
  else if (!VERSIONS.includes(workflow.version)) {
    error('workflow-version-unsupported', '/workflow/version', `version ${workflow.version} is not 1 or 2`);
  }
  text(workflow, 'entry', '/workflow', true);
  if (has(workflow, 'engine')) {
    if (!isObject(workflow.engine)) error('schema', '/workflow/engine', 'engine must be an object');
    else if (has(workflow.engine, 'budget')) {
      const budget = workflow.engine.budget;
      if (!isObject(budget)) error('schema', '/workflow/engine/budget', 'budget must be an object');
      else {
        closed(budget, BUDGETS, '/workflow/engine/budget');
        for (const key of BUDGETS) {
          if (has(budget, key) && !(isInt(budget[key]) && budget[key] >= 1)) {
            error('schema', pointer('workflow', 'engine', 'budget', key), `${key} must be an integer >= 1`);
          }
        }
      }
    }
  }
  let states = workflow.states;
  if (!has(workflow, 'states')) {
    error('schema', '/workflow', 'missing states');
    states = {};
  } else if (!isObject(states) || Object.keys(states).length === 0) {
    error('schema', '/workflow/states', 'states must be a non-empty object');
    states = isObject(states) ? states : {};
  }
  // dead-end-state is an RFC 0009 (version 2) warning.
  const stateReport = { ...report, version2: isInt(workflow.version) && workflow.version >= 2 };
  for (const [name, state] of Object.entries(states)) checkState(name, state, states, prompts, compositions, stateReport);
  if (typeof workflow.entry === 'string') {
    if (!has(states, workflow.entry)) error('entry-unknown', '/workflow/entry', `no state ${workflow.entry}`);
    else warnUnreachable(workflow.entry, states, warn);
  }
}

function checkState(name, state, states, prompts, compositions, report) {
  const { error, warn, text, closed } = report;
  const path = pointer('workflow', 'states', name);
  if (!isObject(state)) {
    error('schema', path, 'a state is an object');
    return;
  }
  closed(state, STATE_KEYS, path);
  for (const key of ['prompt_task', 'description', 'persistence', 'composition', 'skills', 'on_max_visits']) {
    text(state, key, path, false);
  }
  if (has(state, 'terminal') && typeof state.terminal !== 'boolean') error('schema', path + '/terminal', 'terminal must be a boolean');
  if (has(state, 'max_visits') && !(isInt(state.max_visits) && state.max_visits >= 1)) {
    error('schema', path + '/max_visits', 'max_visits must be an integer >= 1');
  }
  if (has(state, 'on_event')) {
    if (!isObject(state.on_event)) error('schema', path + '/on_event', 'on_event must be an object');
    else {
      for (const [event, target] of Object.entries(state.on_event)) {
        const at = path + pointer('on_event', event);
        if (typeof target !== 'string') error('schema', at, 'an event names one state');
        else if (!has(states, target)) error('event-target-unknown', at, `no state ${target}`);
        if (!EVENT_NAME.test(event)) warn('event-name-style', at, `event ${event} is not PascalCase`);
      }
      if (state.terminal === true && Object.keys(state.on_event).length > 0) {
        warn('terminal-with-transitions', path + '/on_event', 'a terminal state never fires its events');
      }
    }
  }
  if (has(state, 'artifacts')) {
    if (!isObject(state.artifacts)) error('schema', path + '/artifacts', 'artifacts must be an object');
    else {
      for (const [slot, declaration] of Object.entries(state.artifacts)) {
        const at = path + pointer('artifacts', slot);
        if (!isObject(declaration)) {
          error('schema', at, 'an artifact is an object');
          continue;
        }
        closed(declaration, ARTIFACT_KEYS, at);
        text(declaration, 'type', at, true);
        text(declaration, 'description', at, false);
        if (has(declaration, 'mode') && !['replace', 'append'].includes(declaration.mode)) {
          error('schema', at + '/mode', 'mode is replace or append');
        }
      }
    }
  }
  let mode = has(state, 'orchestration') ? state.orchestration : 'internal';
  if (typeof mode !== 'string') {
    error('schema', path + '/orchestration', 'orchestration must be a string');
    mode = 'internal';
  } else if (!MODES.includes(mode)) {
    error('orchestration-invalid', path + '/orchestration', `unknown orchestration ${mode}`);
    mode = 'internal';
  }
  if (mode === 'composition') {
    if (!has(state, 'composition')) error('composition-missing', path, 'a composition state needs a composition');
    else if (typeof state.composition === 'string' && !has(compositions, state.composition)) {
      error('composition-unknown', path + '/composition', `no composition ${state.composition}`);
    }
  } else {
    if (has(state, 'composition')) error('composition-not-allowed', path + '/composition', 'only composition states name a composition');
    if (!has(state, 'prompt_task')) error('prompt-task-missing', path, 'no prompt_task');
    else if (typeof state.prompt_task === 'string' && !has(prompts, state.prompt_task)) {
      error('prompt-task-unknown', path + '/prompt_task', `no prompt ${state.prompt_task}`);
    }
  }
  if (typeof state.on_max_visits === 'string' && !has(states, state.on_max_visits)) {
    error('on-max-visits-unknown', path + '/on_max_visits', `no state ${state.on_max_visits}`);
  }
  const events = isObject(state.on_event) ? Object.keys(state.on_event).length : 0;
  if (state.terminal !== true && events === 0 && !has(state, 'max_visits') && report.version2) {
    warn('dead-end-state', path, 'neither terminal nor any way out');
  }
}

function warnUnreachable(entry, states, warn) {
  const seen = new Set([entry]);
  const todo = [entry];
  while (todo.length > 0) {
    const state = states[todo.pop()];
    if (!isObject(state)) continue;
    const targets = [];
    if (isObject(state.on_event) && state.terminal !== true) targets.push(...Object.values(state.on_event));
    targets.push(state.on_max_visits);
    for (const target of targets) {
      if (typeof target === 'string' && has(states, target) && !seen.has(target)) {
        seen.add(target);
        todo.push(target);
      }
    }
  }
  for (const name of Object.keys(states)) {
    if (!seen.has(name)) warn('unreachable-state', pointer('workflow', 'states', name), `nothing leads to ${name}`);
  }
}

/**
 * Load a pack to run its prompts: an object with prompts, each with a system_template. Nothing
 * else is read here (a workflow or compositions are read when a session starts), so a valid pack
 * carrying features this runtime lacks still loads. Returns prompt key -> template.
 */
function loadPack(pack) {
  if (!isObject(pack) || !isObject(pack.prompts) || Object.keys(pack.prompts).length === 0) {
    throw new Rejection('pack-rejected', 'a pack is an object with prompts');
  }
  const templates = {};
  for (const [key, prompt] of Object.entries(pack.prompts)) {
    if (!isObject(prompt) || typeof prompt.system_template !== 'string') {
      throw new Rejection('pack-rejected', `prompt ${key} has no system_template`);
    }
    templates[key] = prompt.system_template;
  }
  return templates;
}

/** A pack's workflow, checked and ready to start sessions. */
class Workflow {
  /** Throws Rejection: workflow-version-unsupported, or the first error's code. */
  static compile(pack) {
    const workflow = isObject(pack) ? pack.workflow : undefined;
    if (!isObject(workflow)) throw new Rejection('schema', 'the pack has no workflow');
    if (isInt(workflow.version) && !VERSIONS.includes(workflow.version)) {
      throw new Rejection('workflow-version-unsupported', `workflow version ${workflow.version} is not 1 or 2`);
    }
    const first = validate(pack).find((d) => d.severity === 'error');
    if (first) throw new Rejection(first.code, `the workflow cannot run: ${first.message} at ${first.path}`);
    return new Workflow(workflow);
  }

  constructor(workflow) {
    this.entry = workflow.entry;
    this.states = workflow.states;
    this.budget = (workflow.engine && workflow.engine.budget) || {};
    this.modes = {}; // artifact -> mode of its first declaration, in document order
    for (const state of Object.values(this.states)) {
      for (const [slot, declaration] of Object.entries(state.artifacts || {})) {
        if (!has(this.modes, slot)) this.modes[slot] = declaration.mode || 'replace';
      }
    }
    this.declaresArtifacts = Object.keys(this.modes).length > 0;
  }

  start({ clock }) {
    return new Session(this, clock);
  }

  /** A session continuing from Session.snapshot() data. */
  restore(snapshot, { clock }) {
    if (!isObject(snapshot) || snapshot.format !== 'node-workflow/1' || !has(this.states, snapshot.current)) {
      throw new Error('not a snapshot of this workflow');
    }
    const session = new Session(this, clock);
    Object.assign(session, {
      current: snapshot.current,
      status: snapshot.status,
      exhaustedBy: snapshot.exhaustedBy,
      visits: { ...snapshot.visits },
      history: snapshot.history.map((entry) => ({ ...entry })),
      artifacts: { ...snapshot.artifacts },
      artifactHistory: snapshot.artifactHistory.map((entry) => ({ ...entry, values: { ...entry.values } })),
      toolCalls: snapshot.toolCalls,
      started: clock() - snapshot.elapsed,
    });
    return session;
  }

  isTerminal(name) {
    const state = this.states[name];
    return state.terminal === true || Object.keys(state.on_event || {}).length === 0;
  }
}

/** One run of a workflow. */
class Session {
  constructor(workflow, clock) {
    this.workflow = workflow;
    this.clock = clock;
    this.started = clock();
    this.current = workflow.entry;
    this.status = workflow.isTerminal(workflow.entry) ? 'completed' : 'active';
    this.exhaustedBy = null;
    this.visits = { [workflow.entry]: 1 };
    this.history = [];
    this.artifacts = {};
    this.artifactHistory = [];
    this.toolCalls = 0;
  }

  /** Process an event from 'host' or 'agent'; returns {from, to, event, redirected?, original_target?}. */
  send(event, source) {
    const workflow = this.workflow;
    if (this.status === 'completed') throw new Rejection('terminal-state', `${this.current} is terminal`);
    if (this.status === 'budget_exhausted') {
      throw new Rejection('budget-exhausted', 'the workflow has ended on a limit', this.exhaustedBy || undefined);
    }
    const limit = this.spentBudget();
    if (limit) {
      this.status = 'budget_exhausted';
      this.exhaustedBy = limit;
      throw new Rejection('budget-exhausted', `${limit} is reached`, limit);
    }
    const state = workflow.states[this.current];
    if (source === 'agent' && state.orchestration === 'external') {
      throw new Rejection('event-source-not-allowed', `${this.current} takes host events only`);
    }
    const named = (state.on_event || {})[event];
    if (typeof named !== 'string' || !has(state.on_event, event)) {
      throw new Rejection('unknown-event', `${this.current} has no event ${event}`);
    }
    let target = named;
    const tried = [];
    for (;;) {
      const guard = workflow.states[target];
      if (!has(guard, 'max_visits') || (this.visits[target] || 0) < guard.max_visits) break;
      tried.push(target);
      if (!has(guard, 'on_max_visits') || tried.includes(guard.on_max_visits)) {
        this.status = 'budget_exhausted';
        throw new Rejection('max-visits-exceeded', `${target} is at its max_visits`);
      }
      target = guard.on_max_visits;
    }
    const transition = { from: this.current, to: target, event };
    if (target !== named) Object.assign(transition, { redirected: true, original_target: named });
    this.history.push({ from: this.current, to: target, event });
    if (workflow.declaresArtifacts) {
      this.artifactHistory.push({ from_state: this.current, to_state: target, event, values: { ...this.artifacts } });
    }
    this.visits[target] = (this.visits[target] || 0) + 1;
    this.current = target;
    if (workflow.isTerminal(target)) this.status = 'completed';
    return transition;
  }

  spentBudget() {
    const budget = this.workflow.budget;
    const used = {
      max_total_visits: Object.values(this.visits).reduce((a, b) => a + b, 0),
      max_tool_calls: this.toolCalls,
      max_wall_time_sec: this.clock() - this.started,
    };
    return BUDGETS.find((key) => has(budget, key) && used[key] >= budget[key]);
  }

  /** Write an artifact: the current state's declared mode, else its first declaration's. */
  setArtifact(name, value) {
    const declared = this.workflow.states[this.current].artifacts || {};
    const modes = this.workflow.modes;
    const mode = has(declared, name) ? declared[name].mode || 'replace' : has(modes, name) ? modes[name] : undefined;
    if (!mode) throw new Rejection('artifact-undeclared', `no state declares ${name}`);
    this.artifacts[name] = mode === 'append' ? (this.artifacts[name] || '') + value : value;
  }

  recordToolCalls(count) {
    this.toolCalls += count;
  }

  state() {
    const state = this.workflow.states[this.current];
    const active = this.status === 'active';
    return {
      current_state: this.current,
      status: this.status,
      terminal: this.workflow.isTerminal(this.current),
      available_events: active ? Object.keys(state.on_event || {}).sort() : [],
      prompt_task: has(state, 'prompt_task') ? state.prompt_task : null,
      visit_counts: { ...this.visits },
      history: this.history.map((entry) => ({ ...entry })),
      artifacts: { ...this.artifacts },
      artifact_history: this.artifactHistory.map((entry) => ({ ...entry, values: { ...entry.values } })),
      tool_calls: this.toolCalls,
      prompt_variables: { artifacts: { ...this.artifacts } },
    };
  }

  snapshot() {
    return {
      format: 'node-workflow/1',
      current: this.current,
      status: this.status,
      exhaustedBy: this.exhaustedBy,
      visits: { ...this.visits },
      history: this.history,
      artifacts: { ...this.artifacts },
      artifactHistory: this.artifactHistory,
      toolCalls: this.toolCalls,
      elapsed: this.clock() - this.started,
    };
  }
}

module.exports = { Rejection, loadPack, validate, Workflow, Session };
