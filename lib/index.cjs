'use strict';
module.exports = {
    ...require('./ax-snapshot.cjs'),
    ...require('./ref-registry.cjs'),
    ...require('./observe-targets.cjs'),
    ...require('./vendor-editor-contract.cjs'),
    ...require('./root-selectors.cjs'),
    ...require('./dom-hash.cjs'),
    ...require('./actions.cjs'),
    ...require('./tools.cjs'),
    ...require('./session.cjs'),
    ...require('./errors.cjs'),
};
