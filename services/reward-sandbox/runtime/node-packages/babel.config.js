// Babel for jest runs, as SandboxFusion's runtime/node: modern syntax for the
// running Node, TypeScript types stripped (not checked).
module.exports = {
  presets: [
    ['@babel/preset-env', { targets: { node: 'current' } }],
    '@babel/preset-typescript',
  ],
};
