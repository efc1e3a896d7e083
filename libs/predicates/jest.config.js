const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'predicates', rootDir: __dirname };
