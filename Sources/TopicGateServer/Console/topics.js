// Topic search across the four scopes: by name, scope owner (ID, login name, group name,
// vendor thing ID) or creator.
import { h, show, field, table, readableTime } from '/console/dom.js';

export async function renderTopics(view, session, query) {
  const text = query.get('q') ?? '';
  const input = h('input', { id: 'topic-search', type: 'search', value: text, spellcheck: false,
    placeholder: 'name, owner or creator' });
  const form = h('form', { class: 'inline', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    location.hash = `#/topics?q=${encodeURIComponent(input.value.trim())}`;
  } }, field('Search topics', input), h('button', { type: 'submit', class: 'primary', text: 'Search' }));
  const results = h('div', { id: 'topic-results' });
  show(view, h('h1', { text: 'Topics' }), form, results);
  const answer = await session.get(`/topic-search?q=${encodeURIComponent(text)}&limit=200`);
  show(results, table(`${answer.topics.length} topic${answer.topics.length === 1 ? '' : 's'}`,
    ['Topic', 'Scope', 'Creator', 'Created'],
    answer.topics.map((topic) => [
      h('a', { href: `#/topic?scope=${encodeURIComponent(topic.scope)}&name=${encodeURIComponent(topic.topicID)}`,
        text: topic.topicID }),
      topic.scopeName ? `${topic.scope} (${topic.scopeName})` : topic.scope,
      topic.creatorName ? `${topic.creator} (${topic.creatorName})` : topic.creator,
      readableTime(topic.createdAt),
    ]), 'no topic matches.'));
  if (text === '') input.focus();
}
