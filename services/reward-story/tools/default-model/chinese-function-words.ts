/**
 * Chinese function words: particles, pronouns, common adverbs, prepositions
 * and conjunctions. Like their English counterparts they carry grammar, not
 * topic, so the default model gives them almost no weight, and their
 * characters are not counted as parts of the words that contain them.
 */
export const CHINESE_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `的 了 是 在 和 有 不 也 就 这 那 都 着 对 与 而 之 以 得 地 又 还 把 被 给 吗 呢 吧 啊 呀 哦 嗯 么 啦 嘛 过 及 或 但 却 才 再 很 太 更 最 已 已经 都是 就是 还是 不是 没有 没
  我 你 您 他 她 它 们 我们 你们 他们 她们 它们 咱 咱们 自己 大家 这个 那个 这些 那些 这里 那里 这样 那样 什么 怎么 为什么 哪 哪里 谁
  一 一个 个 些 一些 从 向 往 到 于 为 因为 所以 如果 虽然 但是 可是 然后 并 并且 或者 而且 只 只是 就 要 会 能 可以 可能 应该 让 使 将 等 来 去 上 下 中 里`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
