import { describe, expect, it } from 'vitest';
import { parsePyKwargs, parsePyValue } from './pyrepr.js';

describe('parsePyValue', () => {
  it('reads Python scalars: None, True, False, ints, floats, inf and nan', () => {
    expect(parsePyValue('None').value).toBeNull();
    expect(parsePyValue('True').value).toBe(true);
    expect(parsePyValue('False').value).toBe(false);
    expect(parsePyValue('-42').value).toBe(-42);
    expect(parsePyValue('1.5e-3').value).toBe(0.0015);
    expect(parsePyValue('inf').value).toBe(Infinity);
    expect(parsePyValue('-inf').value).toBe(-Infinity);
    expect(Number.isNaN(parsePyValue('nan').value as number)).toBe(true);
  });

  it('reads strings in both quote styles with escapes', () => {
    expect(parsePyValue(`'it\\'s'`).value).toBe("it's");
    expect(parsePyValue(`"say \\"hi\\"\\n"`).value).toBe('say "hi"\n');
    expect(parsePyValue(`'{"a": 1}'`).value).toBe('{"a": 1}');
  });

  it('reads lists, tuples, dicts, sets and nested calls', () => {
    expect(parsePyValue("[1, 'a', None]").value).toEqual([1, 'a', null]);
    expect(parsePyValue('(1, 2,)').value).toEqual([1, 2]);
    expect(parsePyValue("{'a': 1, 'b': [True]}").value).toEqual({ a: 1, b: [true] });
    expect(parsePyValue("{'x', 'y'}").value).toEqual(['x', 'y']);
    expect(parsePyValue("Foo(a=1, b=Bar(c='d'))").value).toEqual({
      __call__: 'Foo',
      a: 1,
      b: { __call__: 'Bar', c: 'd' },
    });
  });

  it('keeps unfamiliar reprs as text instead of failing', () => {
    expect(parsePyValue('torch.bfloat16').value).toBe('torch.bfloat16');
    expect(parsePyValue('<LoadFormat.AUTO: 1>').value).toBe('<LoadFormat.AUTO: 1>');
  });
});

describe('parsePyKwargs', () => {
  it('reads a ServerArgs body up to its closing parenthesis', () => {
    const text =
      "model_path='m', tp_size=8, disable_overlap_schedule=False, json_model_override_args='{}') tail";
    const r = parsePyKwargs(text, 0, ')');
    expect(r.complete).toBe(true);
    expect(r.value).toEqual({
      model_path: 'm',
      tp_size: 8,
      disable_overlap_schedule: false,
      json_model_override_args: '{}',
    });
    expect(text.slice(r.end)).toBe(' tail');
  });

  it('returns the fields before a truncation and says it is incomplete', () => {
    const r = parsePyKwargs("model_path='/models/x', tp_size=8, speculative_algorithm='EAG", 0, ')');
    expect(r.complete).toBe(false);
    expect(r.value.model_path).toBe('/models/x');
    expect(r.value.tp_size).toBe(8);
    // the value being cut is not read as "EAG" (or ""): the field stays unknown
    expect(r.value).not.toHaveProperty('speculative_algorithm');
  });

  it('never keeps a value the text ends inside: a string, a number or a word that may go on', () => {
    for (const cut of ["a=1, b='", "a=1, b='EAGLE", 'a=1, b=1', 'a=1, b=Tru', 'a=1, b=<Load']) {
      const r = parsePyKwargs(cut, 0, ')');
      expect({ cut, complete: r.complete, value: r.value }).toEqual({
        cut,
        complete: false,
        value: { a: 1 },
      });
    }
    // a line that ends by itself (vLLM's engine-config line) keeps its last value
    expect(parsePyKwargs('a=1, b=16').value).toEqual({ a: 1, b: 16 });
  });

  it('keeps the complete fields of a dict or call the text ends inside, not the cut one', () => {
    const dict = parsePyValue(
      "{'model': 'm', 'speculative_config': {'method': 'eagle3', 'num_speculative_tokens': 3",
    );
    expect(dict.complete).toBe(false);
    expect(dict.value).toEqual({ model: 'm', speculative_config: { method: 'eagle3' } });
    const call = parsePyKwargs("speculative_config=SpeculativeConfig(method='eag", 0, ')');
    expect(call.value).toEqual({ speculative_config: { __call__: 'SpeculativeConfig' } });
    expect(parsePyValue("['a', 'b").value).toEqual(['a']);
  });

  it('reads a bare kwargs line that ends at the end of text', () => {
    const r = parsePyKwargs(
      "model='m', speculative_config=SpeculativeConfig(method='eagle3', num_spec_tokens=3), seed=0",
    );
    expect(r.value.speculative_config).toEqual({
      __call__: 'SpeculativeConfig',
      method: 'eagle3',
      num_spec_tokens: 3,
    });
    expect(r.value.seed).toBe(0);
  });
});

describe('vLLM-style unquoted values', () => {
  it('reads unquoted words with slashes, hyphens and digits as text', () => {
    const r = parsePyKwargs(
      "model='/m', served_model_name=ibm-granite/granite-4.0-h-350m, quantization=compressed-tensors, dtype=torch.bfloat16, max_seq_len=32768, tokenizer_mode=auto, name=7b-chat, compilation_config={'mode': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>, 'sizes': [1, 2]}, path=/home/x/y",
    );
    expect(r.value).toMatchObject({
      served_model_name: 'ibm-granite/granite-4.0-h-350m',
      quantization: 'compressed-tensors',
      dtype: 'torch.bfloat16',
      max_seq_len: 32768,
      tokenizer_mode: 'auto',
      name: '7b-chat',
      compilation_config: {
        mode: 3,
        cudagraph_mode: '<CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>',
        sizes: [1, 2],
      },
      path: '/home/x/y',
    });
    expect(parsePyValue('{None: 1}').value).toEqual({ null: 1 });
  });
});
