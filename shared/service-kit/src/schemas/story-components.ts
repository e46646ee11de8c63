// The story reward's components are a wire contract: reward-story reports each
// one per item (and per data source, as reward/<ds>/<component>/mean, in the
// trainer's metrics), and the trainer plots them. Services may not import each
// other, so the list lives here, once.

/** Every story reward component, in the order reward-story reports them; each score is in [0, 1]. */
export const STORY_COMPONENTS = ['relevance', 'coherence', 'reference_recall', 'non_repetition', 'beyond_reference', 'info_gain', 'entropy', 'format'] as const;
