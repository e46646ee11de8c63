// The items the reward-model engine tests score: a plain question, a system turn, no prompt at all, Chinese.
import type { ModelItem } from '../../core/backend.ts';

/** One item of data source `d`. */
export const modelItem = (messages: ModelItem['messages'], response: string): ModelItem => ({ dataSource: 'd', messages, response, extraInfo: {} });

export const MODEL_ITEMS: readonly ModelItem[] = [
  modelItem([{ role: 'user', content: 'What is 9+9?' }], '9+9 = 18.'),
  modelItem(
    [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a colour.' },
    ],
    'Blue',
  ),
  modelItem([], 'A response with no prompt at all, a little longer than the others.'),
  modelItem([{ role: 'user', content: '你好' }], '你好！有什么可以帮你？'),
];
