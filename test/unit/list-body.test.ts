import test from 'ava';
import { ListBodyWriter, listBodyMaxBytes, listBodyText } from '../../src/front/http/list-body.js';

const body = { head: '{"hits":[', items: ['{"id":1,"t":"é"}', '{"id":2,"t":"🙂"}', '{"id":3}'], tail: '],"query":"x"}' };

test('the text is the head, the items joined by commas, the tail', (t) => {
  t.is(listBodyText(body), '{"hits":[{"id":1,"t":"é"},{"id":2,"t":"🙂"},{"id":3}],"query":"x"}');
  t.is(listBodyText({ head: '[', items: [], tail: ']' }), '[]');
});

test('the bytes are the UTF-8 of the text, also for multi-byte characters and empty lists', (t) => {
  const writer = new ListBodyWriter(16);
  t.deepEqual(writer.bytes(body), Buffer.from(listBodyText(body), 'utf8'));
  t.deepEqual(writer.bytes({ head: '[', items: [], tail: ']' }), Buffer.from('[]'));
  t.deepEqual(writer.bytes({ head: '', items: ['', ''], tail: '' }), Buffer.from(','));
});

test('the bound covers the worst case of UTF-8 growth', (t) => {
  const worst = { head: '€', items: ['€€', '🙂'], tail: '€' };
  t.true(listBodyMaxBytes(worst) >= Buffer.byteLength(listBodyText(worst)));
});

test('one buffer is reused while bodies fit; a body larger than the keep limit gets its own', (t) => {
  const writer = new ListBodyWriter(64, 256);
  const first = writer.bytes({ head: '[', items: ['1'], tail: ']' });
  const second = writer.bytes({ head: '[', items: ['2'], tail: ']' });
  t.is(first.buffer, second.buffer);
  const huge = writer.bytes({ head: '[', items: ['x'.repeat(1000)], tail: ']' });
  t.not(huge.buffer, second.buffer);
  t.is(huge.length, 1002);
  t.is(writer.bytes({ head: '[', items: ['3'], tail: ']' }).buffer, second.buffer);
  const grown = writer.bytes({ head: '[', items: ['y'.repeat(50)], tail: ']' });
  t.is(grown.toString(), `[${'y'.repeat(50)}]`);
});

test('stored bytes and shaped strings mix: bytes are copied as they are, strings encoded', (t) => {
  const stored = Buffer.from('{"id":1,"t":"é"}');
  const mixed = { head: '{"hits":[', items: [stored.subarray(0), '{"id":2,"t":"🙂"}', new Uint8Array(Buffer.from('{"id":3}'))], tail: '],"query":"x"}' };
  const expected = '{"hits":[{"id":1,"t":"é"},{"id":2,"t":"🙂"},{"id":3}],"query":"x"}';
  t.is(listBodyText(mixed), expected);
  t.deepEqual(new ListBodyWriter(16).bytes(mixed), Buffer.from(expected));
  t.true(listBodyMaxBytes(mixed) >= Buffer.byteLength(expected));
});
