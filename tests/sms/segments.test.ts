import { countSegments } from '../../src/modules/sms/segments';

describe('SMS segments', () => {
  it.each([
    ['', 'GSM-7', 0, 1],
    ['Olá, seu pedido chegou!', 'UCS-2', 23, 1], // "á" is not in GSM 03.38
    ['Ola, seu pedido chegou!', 'GSM-7', 23, 1],
    ['Préço: R$ 10', 'UCS-2', 12, 1], // "ç" is not in GSM (only "Ç" is)
    ['Père Noël à Málaga', 'UCS-2', 18, 1],
    ['Père Noël à Ñandú', 'UCS-2', 17, 1],
    ['Pere Noel a Nandu', 'GSM-7', 17, 1],
    ['{}[]~^|€\\', 'GSM-7', 18, 1], // every extension character counts twice
    ['a'.repeat(160), 'GSM-7', 160, 1],
    ['a'.repeat(161), 'GSM-7', 161, 2],
    ['a'.repeat(306), 'GSM-7', 306, 2],
    ['a'.repeat(307), 'GSM-7', 307, 3],
    ['€'.repeat(80), 'GSM-7', 160, 1],
    ['€'.repeat(81), 'GSM-7', 162, 2],
    // 152 septets then an escape pair: the pair moves whole to the second part
    ['a'.repeat(152) + '€' + 'a'.repeat(10), 'GSM-7', 164, 2],
    ['a'.repeat(152) + '€'.repeat(77), 'GSM-7', 306, 3],
    ['ã'.repeat(70), 'UCS-2', 70, 1],
    ['ã'.repeat(71), 'UCS-2', 71, 2],
    ['ã'.repeat(134), 'UCS-2', 134, 2],
    ['ã'.repeat(135), 'UCS-2', 135, 3],
    ['😀'.repeat(35), 'UCS-2', 70, 1], // an emoji is two UTF-16 units
    ['😀'.repeat(36), 'UCS-2', 72, 2],
    // 66 units then an emoji: the surrogate pair is not split
    ['ã'.repeat(66) + '😀' + 'ã'.repeat(10), 'UCS-2', 78, 2],
    ['a'.repeat(159) + '😀', 'UCS-2', 161, 3],
  ])('%j is %s, %d units, %d segment(s)', (text, encoding, units, segments) => {
    expect(countSegments(text)).toEqual({ encoding, units, segments });
  });
});
