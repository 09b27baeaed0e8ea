// Which runs a chart asks for, and whether it draws them one by one or in groups with bands.
// No request carries one parameter per run beyond a few hundred: a larger selection is sent
// as a query (api/scalars where=, in the server's query language), and above GROUP_ABOVE_RUNS
// runs a chart draws groups (group_by=:auto unless the user chose a field or folders).

/** Runs a chart draws one by one at most before it groups them (unless grouping is off). */
export const GROUP_ABOVE_RUNS = 30;
/** Runs a request names one by one at most; beyond, the selection goes as a query. */
export const NAMED_RUNS = 200;
/** Runs the server draws one by one at most (its MAX_RUNS): beyond, groups are a must. */
export const MAX_UNGROUPED = 1000;
/** The choices of the group control that are not fields (hparams). */
export const GROUPINGS = { auto: `above ${GROUP_ABOVE_RUNS} runs`, none: 'never', folder: 'by folder' };

/** A query string literal of `text` (the server's grammar: a backslash before `"` is a quote). */
export function quoted(text) {
  return `"${String(text).replace(/"/g, '\\"')}"`;
}

/**
 * The query selecting what the sidebar selects: runs matching its filter, minus those ticked
 * off; undefined when that is every run. The filter is a JavaScript regex (case-insensitive
 * when the sidebar says so) sent to the server's Python regex: the sidebar's syntax is the
 * common subset, and `(?i)` carries its case-insensitivity.
 */
export function selectionQuery(state, allRuns) {
  const parts = [];
  const re = state.runFilter?.re;
  if (re) parts.push(`name ~ ${quoted(`${re.flags.includes('i') ? '(?i)' : ''}${re.source}`)}`);
  const off = allRuns.filter((name) => state.deselected.has(name));
  if (off.length) parts.push(`name not in [${off.map(quoted).join(', ')}]`);
  return parts.length ? parts.join(' and ') : undefined;
}

/**
 * How a chart of `count` runs asks for them: {group_by} or {group_regex} when it draws
 * groups, else {} (one line per run). `choice`: 'auto', 'none', 'folder' or an hparam name.
 */
export function groupingOf(choice, count) {
  if (choice === 'none' && count <= MAX_UNGROUPED) return {};
  if (choice === 'folder') return { group_regex: '^(.*)/[^/]*$' };
  if (choice && !Object.hasOwn(GROUPINGS, choice)) return { group_by: choice };
  return count > GROUP_ABOVE_RUNS ? { group_by: ':auto' } : {};
}

/** The request parameters of a chart's runs: named when few and ungrouped, else a query. */
export function runParams(state, runs, grouping) {
  const grouped = Object.keys(grouping).length > 0;
  if (!grouped && runs.length <= NAMED_RUNS) return { run: runs };
  const where = selectionQuery(state, state.runs.map((r) => r.name));
  return { where, ...grouping };
}
