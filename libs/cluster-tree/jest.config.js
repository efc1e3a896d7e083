const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'cluster-tree', rootDir: __dirname };
