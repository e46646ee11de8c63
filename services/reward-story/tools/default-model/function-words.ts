/**
 * English function words: articles, pronouns, prepositions, conjunctions,
 * auxiliaries and the like. They carry grammar rather than topic, so the
 * default model gives them almost no weight whatever their frequency rank.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `a an the this that these those some any each every either neither no none all both few many much more most
  other another such what which who whom whose whatever whichever whoever
  i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself
  we us our ours ourselves they them their theirs themselves one ones
  be am is are was were been being have has had having do does did doing done
  will would shall should can could may might must ought
  and or but nor so yet for if then else than because since unless until while whereas although though
  as at by in into onto on off of from to with within without about above below over under up down out
  through across along among around before after behind beside besides between beyond during except
  near per toward towards upon via against
  not nt s t ll ve re d m o don didn doesn isn aren wasn weren hasn haven hadn couldn wouldn shouldn ain
  there here where when why how whether
  just also too very quite rather only even still again ever never always often
  yes oh ah`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
