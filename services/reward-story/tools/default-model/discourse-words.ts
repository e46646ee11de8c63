/**
 * Words that carry no topic in role-play, whatever their frequency says.
 *
 * - Acknowledgements ("okay", "好的") say only that the speaker heard: they get
 *   weight 0, so a reply made of nothing else embeds to the zero vector and is
 *   related to nothing, as a reply of punctuation is.
 * - Stock moves of role-play narration, speech and gesture verbs ("asks",
 *   "nods", "说", "点头"), turn up in almost every turn of every story; they
 *   are weighted like function words, so sharing them is not sharing a topic.
 */

/** Weight-0 words: pure acknowledgements. */
export const ACKNOWLEDGEMENTS: ReadonlySet<string> = new Set(
  `okay ok sure alright yes yeah yep yup hmm hm uh um mhm
  好的 好吧 好啊 嗯 嗯嗯 哦 噢 喔 行 是的 对 没问题`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Role-play stock words, capped at the function-word weight. */
export const STOCK_WORDS: ReadonlySet<string> = new Set(
  `ask tell say reply answer nod shrug smile grin laugh sigh look glance
  问 说 道 告诉 回答 点头 摇头 笑 看 说道 问道`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
