// The page alone (bundles without a worker): the result goes to window.__nnfold for the test.
import { runModel } from './run-model.js';

const result = await runModel();
document.body.textContent = JSON.stringify(result);
window.__nnfold = { page: result };
