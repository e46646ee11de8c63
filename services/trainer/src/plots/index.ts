export { mergeByStep, renderPlots, renderPlotsFromRecords, renderSvg } from './render-plots.ts';
export { CHARTS, type ChartDef } from './chart-defs.ts';
export { chartSpec } from './chart-spec.ts';
export { sparkline } from './sparkline.ts';
