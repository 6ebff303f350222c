/**
 * The server installs its backend's vocabulary when it is created (model/vocabulary.ts);
 * tests that use the query, viewport or action layers without a server get the Linux
 * backend's the same way, since their fixtures are AT-SPI trees.
 */
import { useVocabulary } from '../src/model/vocabulary.js';
import { LINUX_TRAITS } from '../src/platform/linux/traits.js';

useVocabulary(LINUX_TRAITS.vocabulary);
