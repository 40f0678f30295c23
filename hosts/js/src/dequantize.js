// Undoing dynamic quantization: `MatMulInteger` back to a float `MatMul`.
//
// The port of the Python host's `hive_mind/dequantize.py`, itself the port
// of the Rust host's load-time rewrite (`host/models/src/onnx/dynamic_quant.rs`),
// so that all three hosts run the same arithmetic on the same weights.
// onnxruntime's dynamic int8 quantization (the form of bge-small-en-v1.5 and
// of the shipped cross-encoder) stores each matmul weight as int8 and
// quantizes the activations at run time:
//
//     (x_q, x_scale, x_zp) = DynamicQuantizeLinear(x)
//     y_i32 = MatMulInteger(x_q, W_q, x_zp, W_zp)
//     y     = Mul(Cast<f32>(y_i32), Mul(x_scale, W_scale))
//
// The Rust host rewrites each such chain into `y = MatMul(x, W)` with
// `W = (W_q - W_zp) * W_scale` computed once at load. Left as shipped,
// onnxruntime would round the activations to 8 bits in every layer and its
// bge vectors would agree with the Rust host's only to a cosine of about
// 0.996. Only the exact pattern is rewritten, with constant weights, scales
// and zero points that are per-tensor or per-output-column; the nodes and
// initializers the rewrite leaves unused are pruned.
//
// ONNX files are protobuf; this module reads and writes the few message
// fields it needs at the wire level and copies every other field as bytes.

// --- protobuf wire format ---------------------------------------------------

function readVarint(buf, pos) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buf[pos++];
    if (byte === undefined) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7n;
  }
}

/** The fields of a message: `{ field, wire, value (varint BigInt) | bytes
 * (Uint8Array of a length-delimited payload), raw (the whole field) }`. */
function parse(buf) {
  const fields = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    const entry = { field, wire };
    if (wire === 0) {
      [entry.value, pos] = readVarint(buf, pos);
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 2) {
      let length;
      [length, pos] = readVarint(buf, pos);
      entry.bytes = buf.subarray(pos, pos + Number(length));
      pos += Number(length);
    } else if (wire === 5) {
      pos += 4;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
    if (pos > buf.length) throw new Error('truncated protobuf message');
    entry.raw = buf.subarray(start, pos);
    fields.push(entry);
  }
  return fields;
}

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Uint8Array.from(out);
}

function concat(parts) {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(length);
  let pos = 0;
  for (const part of parts) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytesField(field, bytes) {
  return concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
}

/** A length-delimited field whose payload is `parts` (byte arrays or other
 * such fields), written out once at the end by `flatten`. */
function nested(field, parts) {
  const size = parts.reduce((n, p) => n + (p instanceof Uint8Array ? p.length : p.size), 0);
  const header = concat([varint((field << 3) | 2), varint(size)]);
  return { header, parts, size: header.length + size };
}

function flatten(parts) {
  const size = parts.reduce((n, p) => n + (p instanceof Uint8Array ? p.length : p.size), 0);
  const out = new Uint8Array(size);
  let pos = 0;
  const write = (list) => {
    for (const part of list) {
      if (part instanceof Uint8Array) {
        out.set(part, pos);
        pos += part.length;
      } else {
        out.set(part.header, pos);
        pos += part.header.length;
        write(part.parts);
      }
    }
  };
  write(parts);
  return out;
}
function stringField(field, text) {
  return bytesField(field, encoder.encode(text));
}
function varintField(field, value) {
  return concat([varint(field << 3), varint(value)]);
}

// --- the ONNX messages used -------------------------------------------------

const FLOAT = 1;
const UINT8 = 2;
const INT8 = 3;
const CAST_TO_FLOAT = FLOAT;

function parseNode(raw) {
  const node = { raw, input: [], output: [], name: '', opType: '', attributes: [] };
  for (const f of parse(raw)) {
    if (f.field === 1) node.input.push(decoder.decode(f.bytes));
    else if (f.field === 2) node.output.push(decoder.decode(f.bytes));
    else if (f.field === 3) node.name = decoder.decode(f.bytes);
    else if (f.field === 4) node.opType = decoder.decode(f.bytes);
    else if (f.field === 5) {
      const attribute = { name: '', i: undefined };
      for (const a of parse(f.bytes)) {
        if (a.field === 1) attribute.name = decoder.decode(a.bytes);
        else if (a.field === 3) attribute.i = BigInt.asIntN(64, a.value);
      }
      node.attributes.push(attribute);
    }
  }
  return node;
}

function packedVarints(f) {
  if (f.wire === 0) return [f.value];
  const out = [];
  let pos = 0;
  while (pos < f.bytes.length) {
    let v;
    [v, pos] = readVarint(f.bytes, pos);
    out.push(v);
  }
  return out;
}

function parseTensor(raw) {
  const tensor = { raw, dims: [], dataType: 0, name: '', rawData: undefined, floatData: [], int32Data: [], external: false };
  for (const f of parse(raw)) {
    if (f.field === 1) tensor.dims.push(...packedVarints(f).map((v) => Number(BigInt.asIntN(64, v))));
    else if (f.field === 2) tensor.dataType = Number(f.value);
    else if (f.field === 8) tensor.name = decoder.decode(f.bytes);
    else if (f.field === 9) tensor.rawData = f.bytes;
    else if (f.field === 4) {
      if (f.wire === 2) {
        const copy = f.bytes.slice();
        tensor.floatData.push(...new Float32Array(copy.buffer, 0, copy.length / 4));
      } else {
        tensor.floatData.push(new DataView(f.raw.buffer, f.raw.byteOffset + f.raw.length - 4, 4).getFloat32(0, true));
      }
    } else if (f.field === 5) tensor.int32Data.push(...packedVarints(f).map((v) => Number(BigInt.asIntN(32, v))));
    else if (f.field === 13 || (f.field === 14 && f.value === 1n)) tensor.external = true;
  }
  return tensor;
}

/** A tensor's values as numbers (int8/uint8/float only), or undefined. */
function tensorValues(tensor) {
  if (tensor.external) return undefined;
  const count = tensor.dims.reduce((n, d) => n * d, 1);
  if (tensor.dataType === INT8 || tensor.dataType === UINT8) {
    if (tensor.rawData !== undefined) {
      const bytes = tensor.rawData;
      return tensor.dataType === INT8 ? new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length) : bytes;
    }
    return tensor.dataType === INT8
      ? Int8Array.from(tensor.int32Data)
      : Uint8Array.from(tensor.int32Data);
  }
  if (tensor.dataType === FLOAT) {
    if (tensor.rawData !== undefined) {
      const copy = tensor.rawData.slice();
      return new Float32Array(copy.buffer, 0, copy.length / 4);
    }
    return Float32Array.from(tensor.floatData.length ? tensor.floatData : new Array(count).fill(0));
  }
  return undefined;
}

/** `(q - zp) * scale` as an f32 initializer named after q, for a 2-D
 * int8/uint8 q with a per-tensor or per-column scale and zero point; its
 * encoded TensorProto and name, or undefined. */
function dequantizeTensor(q, zp, scale) {
  if (q.dims.length !== 2 || (q.dataType !== INT8 && q.dataType !== UINT8)) return undefined;
  if (scale.dataType !== FLOAT) return undefined;
  const values = tensorValues(q);
  const zeroPoints = tensorValues(zp);
  const scales = tensorValues(scale);
  if (!values || !zeroPoints || !scales) return undefined;
  const [rows, columns] = q.dims;
  if (![1, columns].includes(zeroPoints.length) || ![1, columns].includes(scales.length)) return undefined;
  if (values.length !== rows * columns) return undefined;
  // (q - zp) is exact, and so is its product with an f32 scale in a
  // double (at most 33 significant bits): stored in a Float32Array it rounds
  // once, as numpy's f32 arithmetic does.
  const zps = new Float64Array(columns);
  const sc = new Float64Array(columns);
  for (let c = 0; c < columns; c++) {
    zps[c] = zeroPoints.length === 1 ? zeroPoints[0] : zeroPoints[c];
    sc[c] = scales.length === 1 ? scales[0] : scales[c];
  }
  const real = new Float32Array(rows * columns);
  for (let r = 0, i = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++, i++) real[i] = (values[i] - zps[c]) * sc[c];
  }
  const name = `${q.name}__dequantized`;
  const encoded = nested(5, [
    varintField(1, rows),
    varintField(1, columns),
    varintField(2, FLOAT),
    stringField(8, name),
    nested(9, [new Uint8Array(real.buffer)]),
  ]);
  return { name, encoded };
}

function matMulNode(activation, weight, output) {
  return concat([
    stringField(1, activation),
    stringField(1, weight),
    stringField(2, output),
    stringField(3, `${output}__f32_matmul`),
    stringField(4, 'MatMul'),
  ]);
}

/**
 * The model with its dynamically quantized matmuls rewritten, as bytes for
 * onnxruntime (`{ bytes, rewritten }`); the bytes as given when there is
 * nothing to rewrite.
 */
export function dequantizedModelBytes(modelBytes) {
  // A plain Uint8Array view (a Buffer's `slice` would not copy).
  const buf = ArrayBuffer.isView(modelBytes)
    ? new Uint8Array(modelBytes.buffer, modelBytes.byteOffset, modelBytes.byteLength)
    : new Uint8Array(modelBytes);
  if (!Buffer.from(buf.buffer, buf.byteOffset, buf.length).includes('MatMulInteger')) {
    return { bytes: buf, rewritten: 0 };
  }
  const model = parse(buf);
  const graphIndex = model.findIndex((f) => f.field === 7 && f.wire === 2);
  if (graphIndex < 0) return { bytes: buf, rewritten: 0 };
  const graphFields = parse(model[graphIndex].bytes);
  const nodes = graphFields.filter((f) => f.field === 1).map((f) => parseNode(f.bytes));
  const initializerFields = graphFields.filter((f) => f.field === 5);
  const initializers = new Map();
  for (const f of initializerFields) {
    const tensor = parseTensor(f.bytes);
    initializers.set(tensor.name, tensor);
  }
  const graphOutputs = new Set(
    graphFields
      .filter((f) => f.field === 12)
      .map((f) => decoder.decode(parse(f.bytes).find((g) => g.field === 1)?.bytes ?? new Uint8Array())),
  );
  const producer = new Map();
  const consumers = new Map();
  nodes.forEach((node, index) => {
    for (const output of node.output) producer.set(output, index);
    for (const input of node.input) {
      if (!consumers.has(input)) consumers.set(input, []);
      consumers.get(input).push(index);
    }
  });
  const onlyConsumer = (value) => {
    const users = consumers.get(value) ?? [];
    return users.length === 1 && !graphOutputs.has(value) ? users[0] : undefined;
  };

  const rewrites = [];
  nodes.forEach((node, index) => {
    if (node.opType !== 'MatMulInteger' || node.input.length !== 4 || node.output.length !== 1) return;
    const quantizeIndex = producer.get(node.input[0]);
    if (quantizeIndex === undefined) return;
    const quantize = nodes[quantizeIndex];
    if (
      quantize.opType !== 'DynamicQuantizeLinear' ||
      quantize.output.length !== 3 ||
      quantize.output[0] !== node.input[0] ||
      quantize.output[2] !== node.input[2]
    ) return;
    const weightQ = initializers.get(node.input[1]);
    const weightZp = initializers.get(node.input[3]);
    const castIndex = onlyConsumer(node.output[0]);
    if (!weightQ || !weightZp || castIndex === undefined) return;
    const cast = nodes[castIndex];
    const toFloat = cast.attributes.some((a) => a.name === 'to' && a.i === BigInt(CAST_TO_FLOAT));
    if (cast.opType !== 'Cast' || !toFloat || !cast.output.length) return;
    const mulIndex = onlyConsumer(cast.output[0]);
    if (mulIndex === undefined) return;
    const mul = nodes[mulIndex];
    if (mul.opType !== 'Mul' || mul.input.length !== 2 || mul.output.length !== 1) return;
    const scalesName = mul.input.find((name) => name !== cast.output[0]);
    const scalesIndex = scalesName !== undefined ? producer.get(scalesName) : undefined;
    if (scalesIndex === undefined) return;
    const scalesMul = nodes[scalesIndex];
    if (scalesMul.opType !== 'Mul' || scalesMul.input.length !== 2 || !scalesMul.input.includes(quantize.output[1])) return;
    const weightScaleName = scalesMul.input.find((name) => name !== quantize.output[1]);
    const weightScale = weightScaleName ? initializers.get(weightScaleName) : undefined;
    if (!weightScale) return;
    const weight = dequantizeTensor(weightQ, weightZp, weightScale);
    if (!weight) return;
    rewrites.push({ activation: quantize.input[0], weight, output: mul.output[0], replaced: [index, castIndex, mulIndex] });
  });
  if (!rewrites.length) return { bytes: buf, rewritten: 0 };

  const replaced = new Map();
  rewrites.forEach((rewrite, which) => rewrite.replaced.forEach((index) => replaced.set(index, which)));
  const emitted = new Set();
  let kept = [];
  nodes.forEach((node, index) => {
    const which = replaced.get(index);
    if (which === undefined) {
      kept.push(node);
      return;
    }
    if (!emitted.has(which)) {
      emitted.add(which);
      const rewrite = rewrites[which];
      kept.push({
        raw: matMulNode(rewrite.activation, rewrite.weight.name, rewrite.output),
        input: [rewrite.activation, rewrite.weight.name],
        output: [rewrite.output],
      });
    }
  });
  // Prune nodes none of whose outputs is used, repeatedly.
  for (;;) {
    const used = new Set(kept.flatMap((node) => node.input));
    const next = kept.filter((node) => node.output.some((o) => used.has(o) || graphOutputs.has(o)));
    if (next.length === kept.length) break;
    kept = next;
  }
  const used = new Set([...kept.flatMap((node) => node.input), ...graphOutputs]);
  const parts = kept.map((node) => bytesField(1, node.raw));
  for (const f of graphFields) {
    if (f.field === 1 || f.field === 5 || f.field === 13) continue;
    parts.push(f.raw);
  }
  for (const f of initializerFields) {
    if (used.has(parseTensorName(f.bytes))) parts.push(f.raw);
  }
  for (const rewrite of rewrites) parts.push(rewrite.weight.encoded);
  for (const f of graphFields) {
    if (f.field !== 13) continue;
    const name = decoder.decode(parse(f.bytes).find((g) => g.field === 1)?.bytes ?? new Uint8Array());
    if (used.has(name)) parts.push(f.raw);
  }
  const graph = nested(7, parts);
  return { bytes: flatten(model.map((f, i) => (i === graphIndex ? graph : f.raw))), rewritten: rewrites.length };
}

function parseTensorName(raw) {
  const f = parse(raw).find((g) => g.field === 8);
  return f ? decoder.decode(f.bytes) : '';
}
