import test from 'ava';
import { TextBody, utf8Body } from '../../src/front/response-bytes.js';

const pieces = ['{"title":"Amélie"', ',', '"a":"', 'é', '"', ',"emoji":"😀 ☃"', ',"cjk":"東京"}'];

test('utf8Body encodes the pieces in order as UTF-8, multi-byte characters included', (t) => {
  const body = utf8Body((sink) => { for (const piece of pieces) sink.append(piece); });
  t.is(body.toString('utf8'), pieces.join(''));
  t.is(body.length, Buffer.byteLength(pieces.join('')));
});

test('utf8Body grows past its scratch and keeps what was written before', (t) => {
  const big = 'é'.repeat(50_000);
  const body = utf8Body((sink) => { sink.append('['); sink.append(big); sink.append(big); sink.append(']'); });
  t.is(body.length, 2 + 4 * 50_000);
  t.is(body.toString('utf8'), `[${big}${big}]`);
});

test('each body is its own copy: a later body does not overwrite an earlier one', (t) => {
  const first = utf8Body((sink) => sink.append('first body'));
  const second = utf8Body((sink) => sink.append('SECOND'));
  t.is(first.toString(), 'first body');
  t.is(second.toString(), 'SECOND');
});

test('a body whose writer throws leaves the next body clean', (t) => {
  t.throws(() => utf8Body((sink) => { sink.append('half'); throw new Error('boom'); }), { message: 'boom' });
  t.is(utf8Body((sink) => sink.append('whole')).toString(), 'whole');
});

test('TextBody gathers the same pieces as one string', (t) => {
  const body = new TextBody();
  for (const piece of pieces) body.append(piece);
  t.is(body.text, pieces.join(''));
});
