#!/usr/bin/env python3
"""Writes the hostile-input corpus of tests/data/hostile/ (issue 8): files a user or an attacker
may hand nnfold as a model. The files are committed; this script documents how each was made and
rewrites them (python3 tests/data/hostile/generate.py). Expected results are in cases.tsv."""
import os
import struct
import zlib

here = os.path.dirname(os.path.abspath(__file__))


def w(name, data):
    if isinstance(data, str):
        data = data.encode('utf-8')
    with open(os.path.join(here, name), 'wb') as f:
        f.write(data)


def param(lines, blobs=None):
    if blobs is None:
        names = set()
        for l in lines:
            t = l.split()
            nb, nt = int(t[2]), int(t[3])
            names.update(t[4:4 + nb + nt])
        blobs = len(names)
    return '7767517\n%d %d\n%s\n' % (len(lines), blobs, '\n'.join(lines))


def f32(vals):
    return struct.pack('<%df' % len(vals), *vals)


HTML = '<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body><h1>Not Found</h1>' \
       '<script>alert(1)</script></body></html>\n'


def png():
    raw = b'\x00\xff\x00\x00' * 4
    ihdr = struct.pack('>IIBBBBB', 2, 2, 8, 2, 0, 0, 0)
    def chunk(t, d):
        return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')


CONV = param(['Input data 0 1 data 0=4 1=4 2=2', 'Convolution conv 1 1 data out 0=3 1=3 4=1 5=1 6=54'])
w('conv.param', CONV)


def conv_bin(weights=None, bias=None, tag=0):
    weights = weights if weights is not None else [0.01 * i for i in range(54)]
    bias = bias if bias is not None else [0.1, 0.2, 0.3]
    return struct.pack('<I', tag) + f32(weights) + f32(bias)


# --- renamed files: HTML and PNG handed over as .param, .bin, .onnx
w('html_as_param.param', HTML)
w('png_as_param.param', png())
w('html_as_bin.bin', HTML)
w('png_as_bin.bin', png())
w('html_as_onnx.onnx', HTML)
w('png_as_onnx.onnx', png())
w('param_as_onnx.onnx', CONV)
w('bin_as_param.param', conv_bin())
w('utf8_bom.param', '\ufeff' + CONV)
w('utf16.param', CONV.encode('utf-16'))
w('wrong_magic.param', CONV.replace('7767517', '7767518', 1))
w('gzip_param.param', zlib.compress(CONV.encode()))

# --- truncated files
w('truncated_header.param', '7767517\n2')
w('truncated_mid_layer.param', CONV[:len(CONV) - 12])
w('truncated_mid_token.param', '7767517\n2 2\nInput data 0 1 data 0=4 1=4 2=2\nConvolution conv 1 1 data out 0=3 1=3 4=1 5=1 6=')
w('truncated_weights.bin', conv_bin()[:150])
w('truncated_in_tag.bin', b'\x00\x00')
w('truncated_fp16.bin', struct.pack('<I', 0x01306B47) + b'\x00' * 40)

# --- NaN / Inf weights: load and run with a warning
w('nan_weights.bin', conv_bin(weights=[float('nan')] + [0.01] * 53))
w('inf_bias.bin', conv_bin(bias=[float('inf'), 0.0, float('-inf')]))
w('nan_fp16.bin', struct.pack('<I', 0x01306B47) + struct.pack('<54H', *([0x7e00] * 54)) + f32([0, 0, 0]))
w('nan_codebook.bin', struct.pack('<I', 0x00C0DEB0) + f32([float('nan')] * 256) + bytes(range(54)) + b'\x00\x00'
  + f32([0, 0, 0]))

# --- graph structure
w('self_cycle.param', param(['Input data 0 1 data 0=4', 'ReLU relu 1 1 x x']))
w('two_layer_cycle.param', param(['Input data 0 1 data 0=4', 'BinaryOp add 2 1 data y x', 'ReLU relu 1 1 x y']))
w('dangling_bottom.param', param(['Input data 0 1 data 0=4', 'ReLU relu 1 1 nowhere out']))
w('duplicate_layer_names.param', param(['Input data 0 1 data 0=4', 'ReLU data 1 1 data out']))
w('duplicate_blob_names.param', param(['Input data 0 1 data 0=4', 'ReLU r1 1 1 data out', 'ReLU r2 1 1 data out']))
w('input_consumes_itself.param', param(['Input data 1 1 data data 0=4']))

# --- names with markup, path separators, control characters
XSS = '<img/src=x/onerror=alert(1)>'
w('markup_type.param', param(['Input data 0 1 data 0=4', '%s relu 1 1 data out' % XSS]))
w('markup_layer_name.param', param(['Input data 0 1 data 0=4', 'ReLU %s 1 1 nowhere out' % XSS]))
w('markup_blob_name.param', param(['Input data 0 1 data 0=4', 'ReLU relu 1 1 %s out' % XSS]))
w('markup_valid_names.param', param(['Input %s 0 1 %s 0=4' % (XSS, XSS), 'ReLU <b>relu</b> 1 1 %s <svg/onload=alert(2)>' % XSS]))
w('path_separator_names.param', param(['Input ../../etc/passwd 0 1 ../../etc/passwd 0=4',
                                       'ReLU relu 1 1 ../../etc/passwd C:\\Windows\\out.f32']))
w('control_chars_type.param', param(['Input data 0 1 data 0=4', 'Re\x1b[31mLU\x07 relu 1 1 data out']))
w('control_chars_names.param', param(['Input data 0 1 data 0=4', 'ReLU re\x01lu 1 1 da\x1bta out']))
w('quote_in_names.param', param(['Input da"ta 0 1 da"ta 0=4', 'ReLU re"lu 1 1 da"ta o"ut']))
w('nul_in_name.param', param(['Input data 0 1 data 0=4', 'ReLU re\x00lu 1 1 data out']))

# --- enormous counts and sizes
w('huge_layer_count.param', '7767517\n999999999 1\nInput data 0 1 data 0=4\n')
w('huge_declared_layers.param', '7767517\n1000000 1000000\nInput data 0 1 data 0=4\n')
w('huge_bottom_count.param', param(['Input data 0 1 data 0=4', 'Concat cat 2147483647 1 data out']))
w('huge_top_count.param', param(['Input data 0 1 data 0=4', 'Split sp 1 99999 data a b']))
w('huge_array_len.param', param(['Input data 0 1 data 0=4', 'Reshape rs 1 1 data out -23300=2147483647,1']))
w('huge_input.param', param(['Input data 0 1 data 0=100000 1=100000 2=1000', 'ReLU relu 1 1 data out']))
w('int_max_input.param', param(['Input data 0 1 data 0=2147483647 1=2147483647 2=2147483647', 'ReLU relu 1 1 data out']))
w('huge_conv_random.param', param(['Input data 0 1 data 0=8 1=8 2=3',
                                   'Convolution conv 1 1 data out 0=1000 1=845 5=1 6=2142075000']))
w('huge_conv.param', param(['Input data 0 1 data 0=8 1=8 2=3',
                            'Convolution conv 1 1 data out 0=100000 1=84 5=1 6=2116800000']))
w('huge_memorydata.param', param(['MemoryData md 0 1 out 0=100000 1=100000 2=100000']))
w('huge_interp.param', param(['Input data 0 1 data 0=8 1=8 2=3', 'Interp up 1 1 data out 0=1 1=1.0e+04 2=1.0e+04']))
w('huge_innerproduct.param', param(['Input data 0 1 data 0=16', 'InnerProduct ip 1 1 data out 0=2000000000 2=2000000000']))
w('lstm_weight_size.param', param(['Input data 0 1 data 0=4 1=3', 'LSTM lstm 1 1 data out 0=8 1=100']))
w('huge_lstm.param', param(['Input data 0 1 data 0=5000 1=3', 'LSTM lstm 1 1 data out 0=40000 1=1600000000 2=2']))
w('lstm_state_mismatch.param', param(['Input data 0 1 data 0=4 1=3', 'Input h 0 1 h 0=5', 'Input c 0 1 c 0=8',
                                      'LSTM lstm 3 1 data h c out 0=8 1=128']))
w('long_name.param', param(['Input data 0 1 data 0=4', 'ReLU %s 1 1 data out' % ('n' * 70000)]))
w('many_params.param', param(['Input data 0 1 data 0=4', 'ReLU relu 1 1 data out ' + ' '.join('%d=1' % (i % 32) for i in range(20000))]))
w('tiny.bin', b'\x00' * 16)

# --- int8 scales (issue 14): an int8 Convolution (8=101: int8 weights, bias, 3 weight scales, the
# bottom scale, the top scale) whose scales are 0, NaN or infinite: invalid_model at load, naming
# the layer and the scale. A zero weight scale is not among them: ncnn reads it as an all-zero
# channel (scale_in 0).
w('int8conv.param', param(['Input data 0 1 data 0=4 1=4 2=2', 'Convolution conv 1 1 data out 0=3 1=3 4=1 5=1 6=54 8=101']))


def int8_bin(wscales=(100.0, 90.0, 80.0), bottom=50.0, top=2.0):
    codes = bytes((i * 7) % 255 for i in range(54)) + b'\x00\x00'  # int8 codes, padded to 4 bytes
    return struct.pack('<I', 0x000D4B38) + codes + f32([0.1, 0.2, 0.3]) + f32(list(wscales)) + f32([bottom]) + f32([top])


w('int8_ok.bin', int8_bin())
w('int8_top_scale_zero.bin', int8_bin(top=0.0))
w('int8_bottom_scale_zero.bin', int8_bin(bottom=0.0))
w('int8_bottom_scale_nan.bin', int8_bin(bottom=float('nan')))
w('int8_weight_scale_inf.bin', int8_bin(wscales=(100.0, float('inf'), 80.0)))
w('int8_top_scale_inf.bin', int8_bin(top=float('-inf')))


# --- calibration files (issue 14 item 5): what `nnfold quantize --calibration DIR` and
# model.quantize may be handed. Stage 'calibrate' in cases.tsv: the companion model (random
# weights) is quantized on the one file. picture_model.param takes a [3, 8, 8] image;
# rgba_input.param a 4-channel one, which pictures cannot give; nothing_to_quantize.param has no
# Convolution/ConvolutionDepthWise/InnerProduct.
w('picture_model.param', param(['Input data 0 1 data 0=8 1=8 2=3', 'Convolution conv 1 1 data out 0=4 1=3 4=1 5=1 6=108']))
w('rgba_input.param', param(['Input data 0 1 data 0=8 1=8 2=4', 'Convolution conv 1 1 data out 0=4 1=3 4=1 5=1 6=144']))
w('nothing_to_quantize.param', param(['Input data 0 1 data 0=8 1=8 2=3', 'ReLU relu 1 1 data out']))


def png_chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)


def picture_png(width, height, color_type, channels):
    rows = b''.join(b'\x00' + bytes((x * 23 + y * 41 + k * 77) % 256 for x in range(width) for k in range(channels))
                    for y in range(height))
    return (b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, color_type, 0, 0, 0)) +
            png_chunk(b'IDAT', zlib.compress(rows)) + png_chunk(b'IEND', b''))


calib_png = picture_png(16, 12, 2, 3)
w('calib_ok.png', calib_png)
w('calib_gray.png', picture_png(5, 7, 0, 1))
w('calib_truncated.png', calib_png[:len(calib_png) // 2])
# 100000 x 100000 RGB declared in 65 bytes: refused from the header, before any allocation
w('calib_bomb.png', b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', struct.pack('>IIBBBBB', 100000, 100000, 8, 2, 0, 0, 0)) +
  png_chunk(b'IDAT', zlib.compress(b'')) + png_chunk(b'IEND', b''))
# a 16x12 baseline JPEG (written by stb_image_write, quality 90), whole and cut at two thirds
CALIB_JPG = bytes.fromhex(
    'ffd8ffe000104a46494600010100000100010000ffdb0084000302020302020303030304030304050805050404050a07'
    '0706080c0a0c0c0b0a0b0b0d0e12100d0e110e0b0b1016101113141515150c0f17181614181214151401030404050405'
    '09050509140d0b0d14141414141414141414141414141414141414141414141414141414141414141414141414141414'
    '14141414141414141414ffc0001108000c001003012200021101031101ffc401a2000001050101010101010000000000'
    '0000000102030405060708090a0b100002010303020403050504040000017d0102030004110512213141061351610722'
    '7114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a'
    '535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8'
    'a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9'
    'fa0100030101010101010101010000000000000102030405060708090a0b110002010204040304070504040001027700'
    '0102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a2627'
    '28292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788'
    '898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2'
    'e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c03010002110311003f0063786a2b7682defb429618e260a93db956'
    '4da3a6db68dbfda882c48dce42c67e7d34ab9ae48f32f3fb6ae9649d8acd1eb16c2eda7cfcec225e11c33dced38dbe6f'
    'da828db0df466df91b7d4a392d39b0b609716f3ccd12191235d91ea4caaa8ae1553fd0106d0301652140115b791dcf86'
    'bce9a5f164d79752ea33692275864bbdafe608ceb8c77ae369deda6e5b00645edda8c248aa979a41e5c9cf156972bd6f'
    'eb6bfbcaa35af6926add775b53854ab839e2ecf929be571fb37d3549c9a6b5b7c2ba68ada7ffd9')
w('calib_ok.jpg', CALIB_JPG)
w('calib_truncated.jpg', CALIB_JPG[:len(CALIB_JPG) * 2 // 3])
# a JPEG frame header (SOF0) declaring 65000 x 65000 pixels, 3 components
w('calib_bomb.jpg', bytes([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xfd, 0xe8, 0xfd, 0xe8, 0x03, 0x01, 0x11, 0x00, 0x02,
                           0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9]))
w('calib_html.png', HTML)
w('calib_ok.f32', f32([((i * 37) % 200) / 100.0 - 1.0 for i in range(3 * 8 * 8)]))
w('calib_wrong_size.f32', f32([0.5] * 100))  # 400 bytes; [3, 8, 8] needs 768
