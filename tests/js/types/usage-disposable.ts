// Compiled only under the tsconfigs whose lib declares Symbol.dispose (esnext.disposable, or
// @types/node): there a Model is Disposable, so `using` frees it at the end of the block.
import init from 'nnfold';

async function scoped(): Promise<void> {
  const nf = await init();
  {
    using model = nf.loadNcnn('7767517\n...', null);
    void model.outputs;
  }
  const other = nf.loadNcnn('7767517\n...', null);
  other[Symbol.dispose]();
  const d: Disposable = other;
  void d;
}

void scoped;
