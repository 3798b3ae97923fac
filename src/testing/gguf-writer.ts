/**
 * A minimal GGUF v3 writer: enough to produce small model files for tests (metadata plus F32
 * tensors). Format reference: the GGUF specification in the ggml repository (docs/gguf.md).
 *
 * Layout: header (magic, version, tensor count, metadata count), metadata key/value pairs, tensor
 * infos (name, dims, type, offset), padding to `general.alignment`, then the tensor data, each
 * tensor starting on an aligned offset.
 */

/** GGUF metadata value types, with their on-disk type ids. */
const VALUE_TYPE = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

export type GgufScalarType = Exclude<keyof typeof VALUE_TYPE, "array">;

export type GgufValue =
  | { type: Exclude<GgufScalarType, "string" | "bool" | "uint64" | "int64">; value: number }
  | { type: "uint64" | "int64"; value: bigint | number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "array"; itemType: "string"; values: readonly string[] }
  | {
      type: "array";
      itemType: Exclude<GgufScalarType, "string" | "bool" | "uint64" | "int64">;
      values: readonly number[];
    }
  | { type: "array"; itemType: "bool"; values: readonly boolean[] };

/** Shorthands for metadata values. */
export const gguf = {
  u32: (value: number): GgufValue => ({ type: "uint32", value }),
  i32: (value: number): GgufValue => ({ type: "int32", value }),
  f32: (value: number): GgufValue => ({ type: "float32", value }),
  bool: (value: boolean): GgufValue => ({ type: "bool", value }),
  str: (value: string): GgufValue => ({ type: "string", value }),
  strings: (values: readonly string[]): GgufValue => ({ type: "array", itemType: "string", values }),
  f32s: (values: readonly number[]): GgufValue => ({ type: "array", itemType: "float32", values }),
  i32s: (values: readonly number[]): GgufValue => ({ type: "array", itemType: "int32", values }),
};

export type GgufTensor = {
  name: string;
  /** ggml order: `dims[0]` is the fastest-varying (row length). A matrix W[out][in] is `[in, out]`. */
  dims: readonly number[];
  data: Float32Array;
};

export type GgufFile = {
  metadata: ReadonlyArray<readonly [key: string, value: GgufValue]>;
  tensors: readonly GgufTensor[];
  /** Data alignment; written as `general.alignment` when not 32 (the default). */
  alignment?: number;
};

const GGML_TYPE_F32 = 0;

/** Serialises a GGUF v3 file. Only F32 tensors are supported (test models need nothing else). */
export function writeGguf(file: GgufFile): Buffer {
  const alignment = file.alignment ?? 32;
  const metadata = [...file.metadata];
  if (alignment !== 32) metadata.push(["general.alignment", gguf.u32(alignment)]);
  const out = new ByteWriter();
  out.raw(Buffer.from("GGUF", "ascii"));
  out.u32(3);
  out.u64(file.tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const tensor of file.tensors) {
    const count = tensor.dims.reduce((a, b) => a * b, 1);
    if (count !== tensor.data.length) {
      throw new Error(`GGUF tensor ${tensor.name}: dims ${tensor.dims.join("x")} need ${count} values`);
    }
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const dim of tensor.dims) out.u64(dim);
    out.u32(GGML_TYPE_F32);
    out.u64(offset);
    offset = alignUp(offset + tensor.data.byteLength, alignment);
  }
  out.pad(alignment);
  const dataStart = out.length;
  for (const tensor of file.tensors) {
    out.pad(alignment, dataStart);
    out.raw(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
  }
  return out.toBuffer();
}

function writeValue(out: ByteWriter, value: GgufValue): void {
  out.u32(VALUE_TYPE[value.type]);
  if (value.type === "array") {
    out.u32(VALUE_TYPE[value.itemType]);
    out.u64(value.values.length);
    for (const item of value.values) writeScalar(out, value.itemType, item);
    return;
  }
  writeScalar(out, value.type, value.value);
}

function writeScalar(out: ByteWriter, type: GgufScalarType, value: number | bigint | boolean | string): void {
  if (type === "string") out.string(String(value));
  else out.raw(scalarBytes(type, value));
}

function scalarBytes(
  type: Exclude<GgufScalarType, "string">,
  value: number | bigint | boolean | string,
): Buffer {
  const n = Number(value);
  switch (type) {
    case "bool":
      return Buffer.from([value ? 1 : 0]);
    case "uint8":
      return Buffer.from([n]);
    case "int8":
      return fixed(1, (b) => b.writeInt8(n));
    case "uint16":
      return fixed(2, (b) => b.writeUInt16LE(n));
    case "int16":
      return fixed(2, (b) => b.writeInt16LE(n));
    case "uint32":
      return fixed(4, (b) => b.writeUInt32LE(n));
    case "int32":
      return fixed(4, (b) => b.writeInt32LE(n));
    case "float32":
      return fixed(4, (b) => b.writeFloatLE(n));
    case "uint64":
      return fixed(8, (b) => b.writeBigUInt64LE(BigInt(value as number | bigint)));
    case "int64":
      return fixed(8, (b) => b.writeBigInt64LE(BigInt(value as number | bigint)));
    case "float64":
      return fixed(8, (b) => b.writeDoubleLE(n));
  }
}

function fixed(size: number, write: (buffer: Buffer) => void): Buffer {
  const buffer = Buffer.alloc(size);
  write(buffer);
  return buffer;
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

class ByteWriter {
  private readonly chunks: Buffer[] = [];
  length = 0;

  raw(bytes: Buffer): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  u32(value: number): void {
    this.raw(fixed(4, (b) => b.writeUInt32LE(value)));
  }

  u64(value: number | bigint): void {
    this.raw(fixed(8, (b) => b.writeBigUInt64LE(BigInt(value))));
  }

  string(value: string): void {
    const bytes = Buffer.from(value, "utf8");
    this.u64(bytes.length);
    this.raw(bytes);
  }

  /** Zero bytes up to the next multiple of `alignment`, counted from `from`. */
  pad(alignment: number, from = 0): void {
    const used = this.length - from;
    const padding = alignUp(used, alignment) - used;
    if (padding > 0) this.raw(Buffer.alloc(padding));
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}
