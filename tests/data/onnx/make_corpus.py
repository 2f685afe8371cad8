#!/usr/bin/python3
"""Writes the exporter-made ONNX corpus (tests/data/onnx/*.onnx + corpus.json).

Run with Debian's torch 1.13 (`apt-get install -y python3-torch python3-onnx`) as
`/usr/bin/python3 tests/data/onnx/make_corpus.py`. Not run in CI: the models it writes are
committed, and the tests run them with onnxruntime-node as the oracle. Weights are torch's seeded
random initialisation (small sizes: every model stays well under 1 MB). Each entry of corpus.json
names the model, its inputs (dtype, shape, value range for the seeded test inputs) and what it
exercises; the tests keep the expected import status per model there too.
"""
import json
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(20261126)
entries = []


def export(name, model, args, input_specs, output_names, what, opset=17, dynamic_axes=None):
    model.eval()
    path = os.path.join(HERE, name + '.onnx')
    # not under no_grad: with gradients on, torch 1.13 keeps TransformerEncoderLayer off its fused
    # fast path, which has no ONNX export
    torch.onnx.export(model, args, path, opset_version=opset, input_names=[s['name'] for s in input_specs],
                      output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True)
    size = os.path.getsize(path)
    assert size < 1 << 20, (name, size)
    entries.append({'file': name + '.onnx', 'inputs': input_specs, 'outputs': output_names, 'what': what,
                    'opset': opset})
    print(f'{name}.onnx: {size} bytes')


def f32(name, shape, lo=-1.0, hi=1.0):
    return {'name': name, 'dtype': 'float32', 'shape': shape, 'range': [lo, hi]}


# 1. LSTM: 2 layers, bidirectional, sequence-first, initial states given
class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(16, 24, num_layers=2, bidirectional=True)

    def forward(self, x, h0, c0):
        return self.rnn(x, (h0, c0))


export('lstm_bidir_2layer', Lstm(), (torch.randn(10, 1, 16), torch.zeros(4, 1, 24), torch.zeros(4, 1, 24)),
       [f32('x', [10, 1, 16]), f32('h0', [4, 1, 24], -0.5, 0.5), f32('c0', [4, 1, 24], -0.5, 0.5)],
       ['y', 'hn', 'cn'], 'LSTM x2 bidirectional, initial states, all three outputs')


# 2. GRU: batch-first (torch transposes around the ONNX GRU), no initial state
class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(16, 20, batch_first=True)
        self.fc = nn.Linear(20, 5)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y[:, -1]), h


export('gru_batch_first', Gru(), (torch.randn(1, 12, 16),), [f32('x', [1, 12, 16])], ['logits', 'hn'],
       'GRU (linear_before_reset=1), batch_first, last step into a Linear')


# 3. Vanilla RNN, tanh, reverse direction via flip
class Rnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(16, 20, nonlinearity='tanh')

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


export('rnn_tanh', Rnn(), (torch.randn(8, 1, 16),), [f32('x', [8, 1, 16])], ['y', 'hn'], 'RNN (tanh), one layer')


# 4. Text encoder: integer token ids, an embedding, a padding mask, one transformer layer
class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 32, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, 16, 32) * 0.1)
        self.layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.head = nn.Linear(32, 8)

    def forward(self, ids):
        mask = ids == 0
        x = self.emb(ids) + self.pos
        x = self.layer(x, src_key_padding_mask=mask)
        keep = (~mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled)


ids = torch.randint(1, 100, (1, 16))
ids[0, 12:] = 0
export('text_encoder', TextEncoder(), (ids,), [{'name': 'ids', 'dtype': 'int64', 'shape': [1, 16], 'range': [0, 99]}],
       ['logits'], 'int64 token ids, Embedding (Gather), padding mask (Equal/Not/Where), TransformerEncoderLayer')


# 5. ViT block, attention written as timm does: qkv reshape to [B, N, 3, heads, d] + permute(2, 0, 3, 1, 4)
class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.d = heads, dim // heads
        self.scale = self.d ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, self.d).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class VitBlock(nn.Module):
    def __init__(self, dim=48, heads=4):
        super().__init__()
        self.n1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.n2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        x = x + self.attn(self.n1(x))
        return x + self.mlp(self.n2(x))


export('vit_block', VitBlock(), (torch.randn(1, 20, 48),), [f32('x', [1, 20, 48])], ['y'],
       'timm-style attention: 5-D qkv [1, 20, 3, 4, 12] permuted (2, 0, 3, 1, 4), LayerNorm, GELU')


# 6. Swin block: shifted windows (roll), 6-D window partition, attention mask built with slice assignment
def window_partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws * ws, C)


def window_reverse(w, ws, H, W):
    C = w.shape[-1]
    x = w.view(1, H // ws, W // ws, ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(1, H, W, C)


class SwinBlock(nn.Module):
    def __init__(self, dim=16, heads=2, ws=4, shift=2, H=8, W=8):
        super().__init__()
        self.dim, self.heads, self.ws, self.shift, self.H, self.W = dim, heads, ws, shift, H, W
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.bias = nn.Parameter(torch.randn(heads, ws * ws, ws * ws) * 0.1)

    def forward(self, x):
        H, W, ws, s = self.H, self.W, self.ws, self.shift
        img_mask = torch.zeros((1, H, W, 1))
        cnt = 0
        for h in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
            for w in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mw = window_partition(img_mask, ws).squeeze(-1)
        mask = mw.unsqueeze(1) - mw.unsqueeze(2)
        mask = mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)
        shortcut = x
        x = self.norm(x)
        x = torch.roll(x, shifts=(-s, -s), dims=(1, 2))
        win = window_partition(x, ws)
        nW, N, C = win.shape
        qkv = self.qkv(win).reshape(nW, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * (C // self.heads) ** -0.5) @ k.transpose(-2, -1) + self.bias.unsqueeze(0)
        attn = attn + mask.unsqueeze(1)
        attn = attn.softmax(-1)
        out = self.proj((attn @ v).transpose(1, 2).reshape(nW, N, C))
        x = window_reverse(out, ws, H, W)
        x = torch.roll(x, shifts=(s, s), dims=(1, 2))
        return shortcut + x


export('swin_block', SwinBlock(), (torch.randn(1, 8, 8, 16),), [f32('x', [1, 8, 8, 16])], ['y'],
       'Swin: roll, 6-D window partition, shifted-window mask by slice assignment (ScatterND), 5-D qkv')


# 7. YOLOv5 detection head exported with in-place slice assignment (ScatterND), 5-D tensors
class YoloHead(nn.Module):
    def __init__(self, nc=3, na=3, ch=16, stride=8.0):
        super().__init__()
        self.no, self.na, self.stride = nc + 5, na, stride
        self.m = nn.Conv2d(ch, self.no * na, 1)
        self.register_buffer('anchor_grid', torch.tensor([[10., 13.], [16., 30.], [33., 23.]]).view(1, na, 1, 1, 2))

    def forward(self, x):
        bs, _, ny, nx = x.shape
        x = self.m(x).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        yv, xv = torch.meshgrid(torch.arange(ny, dtype=torch.float32), torch.arange(nx, dtype=torch.float32),
                                indexing='ij')
        grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2)
        y = x.sigmoid()
        y[..., 0:2] = (y[..., 0:2] * 2 - 0.5 + grid) * self.stride
        y[..., 2:4] = (y[..., 2:4] * 2) ** 2 * self.anchor_grid
        return y.view(bs, -1, self.no)


export('yolov5_head', YoloHead(), (torch.randn(1, 16, 10, 12),), [f32('x', [1, 16, 10, 12])], ['det'],
       'YOLOv5 head: 5-D view/permute, in-place slice assignment (ScatterND), grid from Range')


# 8. ConvNeXt block: 7x7 depthwise, NHWC permute, LayerNorm, MLP with GELU, layer scale
class ConvNextBlock(nn.Module):
    def __init__(self, dim=24):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pw1 = nn.Linear(dim, 4 * dim)
        self.pw2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.rand(dim) * 0.5 + 0.5)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.pw2(F.gelu(self.pw1(self.norm(y)))) * self.gamma
        return x + y.permute(0, 3, 1, 2)


export('convnext_block', ConvNextBlock(), (torch.randn(1, 24, 14, 14),), [f32('x', [1, 24, 14, 14])], ['y'],
       'ConvNeXt: depthwise 7x7, permute to NHWC, LayerNorm, Linear/GELU/Linear, layer scale')


# 9. If on a shape condition (scripted: an odd width is padded to even), symbolic spatial sizes
class PadToEven(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        if x.size(3) % 2 == 1:
            x = F.pad(x, [0, 1, 0, 0])
        return F.avg_pool2d(self.conv(x), 2)


scripted = torch.jit.script(PadToEven())
export('if_shape', scripted, (torch.randn(1, 3, 16, 15),), [f32('x', [1, 3, 16, 15])], ['y'],
       'If whose condition depends on the input width (folds once shapes are known); symbolic H, W',
       dynamic_axes={'x': {2: 'height', 3: 'width'}})


# 10. Log-mel front end: framing + DFT as a Conv1d, power, mel MatMul, a Clip bound computed in the graph (top_db)
class LogMel(nn.Module):
    def __init__(self, n_fft=64, hop=32, n_mels=12, sr=8000):
        super().__init__()
        n = torch.arange(n_fft, dtype=torch.float32)
        k = torch.arange(n_fft // 2 + 1, dtype=torch.float32).unsqueeze(1)
        window = 0.5 - 0.5 * torch.cos(2 * math.pi * n / n_fft)
        ang = 2 * math.pi * k * n / n_fft
        kernel = torch.cat([torch.cos(ang) * window, -torch.sin(ang) * window], 0).unsqueeze(1)
        self.register_buffer('kernel', kernel)
        self.hop, self.nb = hop, n_fft // 2 + 1
        fb = torch.rand(self.nb, n_mels)
        self.register_buffer('fb', fb / fb.sum(0, keepdim=True))

    def forward(self, wav):
        spec = F.conv1d(wav.unsqueeze(1), self.kernel, stride=self.hop)
        re, im = spec[:, :self.nb], spec[:, self.nb:]
        power = re * re + im * im
        mel = torch.matmul(power.transpose(1, 2), self.fb)
        db = 10.0 * torch.log10(torch.clamp(mel, min=1e-10))
        return torch.max(db, db.max() - 80.0)


export('logmel', LogMel(), (torch.randn(1, 800),), [f32('wav', [1, 800])], ['logmel'],
       'DFT as Conv1d, power, mel MatMul, log10, a bound computed in the graph (max - 80 dB)')


# 12. The ViT block with a batch of 2: the qkv tensor [2, 20, 3, 4, 12] permuted to [3, 2, 4, 20, 12]
# keeps 5 axes (no leading 1 to drop, and ncnn's MultiHeadAttention is batch-free), so it runs
# through the folded view of tensors above 4 axes (docs/shapes-and-files.md)
export('vit_block_batch2', VitBlock(dim=24, heads=2), (torch.randn(2, 10, 24),), [f32('x', [2, 10, 24])], ['y'],
       'ViT block with batch 2: 5-D qkv [2, 10, 3, 2, 12] permuted (2, 0, 3, 1, 4) to [3, 2, 2, 10, 12], batch axis moved')

# 13. A classifier head returning its top-5 classes: conv features, pooled, a Linear, softmax, then
# TopK (values and int64 indices) and ArgMax (int64) as graph outputs
class TopClasses(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.fc = nn.Linear(16, 20)

    def forward(self, x):
        f = F.adaptive_avg_pool2d(F.relu(self.conv(x)), 1).flatten(1)
        p = torch.softmax(self.fc(f), dim=1)
        top_p, top_i = torch.topk(p, 5, dim=1)
        return top_p, top_i, torch.argmax(p, dim=1)


export('classifier_top5', TopClasses(), (torch.randn(1, 3, 16, 16),), [f32('image', [1, 3, 16, 16])],
       ['top_p', 'top_i', 'best'], 'classifier head: softmax, TopK(5) values and int64 indices, ArgMax as outputs')

with open(os.path.join(HERE, 'corpus.json'), 'w') as f:
    json.dump({'generator': 'tests/data/onnx/make_corpus.py (torch ' + torch.__version__ + ')', 'models': entries}, f,
              indent=1)
    f.write('\n')
