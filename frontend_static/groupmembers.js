// A group's members, listed under its chart when its line is clicked: how many runs, their
// names (a click on one draws that run's own line, as a click on a band's edge does), and
// the query that selects them, to open them in the Runs tab.

import { h } from './dom.js';
import { quoted } from './selection.js';

/** Names listed at most; the Runs tab holds every member. */
export const LISTED = 500;

/**
 * The query selecting a group's runs from its key ({field: value}, as the server sends it):
 * each field equal to its value; null (not expressible: a run without the field, or a
 * regex capture of the name) when the key alone cannot say it.
 */
export function groupQuery(key) {
  const parts = [];
  for (const [field, value] of Object.entries(key ?? {})) {
    if (field === 'name' || value === null || value === undefined) return null;
    const name = /^[A-Za-z_][\w./-]*$/.test(field) ? field : null;
    if (name === null) return null;
    parts.push(`${name} == ${typeof value === 'number' ? String(value) : quoted(value)}`);
  }
  return parts.length ? parts.join(' and ') : null;
}

/** The query of a group: by its key when it can, else its members by name (null past `limit` characters). */
export function membersQuery(group, limit = 60000) {
  const byKey = groupQuery(group.key);
  if (byKey) return byKey;
  const named = `name in [${group.members.map(quoted).join(', ')}]`;
  return named.length <= limit ? named : null;
}

export class GroupMembers {
  /** pin(member): draw or remove a member's own line; openRuns(where): the Runs tab, filtered. */
  constructor({ pin, openRuns }) {
    this.pin = pin;
    this.openRuns = openRuns;
    this.el = h('section', { class: 'group-members', hidden: true, 'aria-label': 'members of the group' });
    this.shownFor = null;
  }

  /** List the members of `series` (a group's line); a second click on the same group closes it. */
  toggle(series) {
    if (this.shownFor === series.run && !this.el.hidden) {
      this.hide();
      return;
    }
    this.shownFor = series.run;
    const { members } = series.group;
    const where = membersQuery(series.group);
    const listed = members.slice(0, LISTED);
    this.el.replaceChildren(
      h('header', {},
        h('strong', {}, series.run), ` · ${members.length.toLocaleString()} run${members.length === 1 ? '' : 's'} `,
        where && this.openRuns ? h('button', { type: 'button', class: 'open-runs', onclick: () => this.openRuns(where) }, 'Open in the Runs tab') : null,
        h('button', { type: 'button', class: 'close-members', 'aria-label': 'close', onclick: () => this.hide() }, '×')),
      h('ol', { class: 'member-list' }, listed.map((name) => h('li', {},
        h('button', { type: 'button', class: 'member', title: `draw ${name}'s own line`, onclick: () => this.pin(name) }, name)))),
      members.length > listed.length ? h('p', { class: 'muted' }, `and ${(members.length - listed.length).toLocaleString()} more`) : null,
    );
    this.el.hidden = false;
  }

  hide() {
    this.el.hidden = true;
    this.shownFor = null;
  }
}
