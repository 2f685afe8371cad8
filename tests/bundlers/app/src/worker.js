// A module worker running the same model as the page.
import { runModel } from './run-model.js';

self.onmessage = async () => {
  self.postMessage(await runModel());
};
