export { OPENRLHF_ERROR_LOG_KEY, OpenRlhfRequest, OpenRlhfResponse, openRlhfItems, toOpenRlhfResponse } from './openrlhf.ts';
export { SlimeRequest, SlimeRewardDetail, slimeItem, toSlimeDetail, toSlimeReward } from './slime.ts';
export { LabelObject, readLabel } from './label.ts';
export { responseAfterPrompt, stripTrailingSpecialTokens, TRAILING_SPECIAL_TOKENS } from './response-text.ts';
export type { ProtocolSlot } from './slot.ts';
