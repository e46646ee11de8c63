export { renderPlots } from './render-plots.ts';
export { sparkline } from './sparkline.ts';
