import { describe, expect, it } from 'vitest';
import { findBaseForm } from './inflection.ts';

// word → frequency rank, as the vocabulary builder passes it
const known = new Map(
  [
    'walk',
    'run',
    'story',
    'quick',
    'happy',
    'wolf',
    'knife',
    'box',
    'watch',
    'hero',
    'sword',
    'care',
    'car',
    'star',
    'stare',
    'cook',
    'cooke',
    'leave',
    'part',
    'parte',
    'change',
    'chang',
    'sing',
    'singe',
    'lock',
    'locke',
    'stop',
    'love',
    'pass',
    'passe',
    'mill',
    'mille',
    'bet',
    'bette',
    'gentle',
    'gent',
    'critical',
    'critic',
    'new',
    'even',
    'she',
    'apple',
    'cry',
    'tie',
    'bright',
  ].map((w, i) => [w, i + 1]),
);

describe('findBaseForm', () => {
  it.each([
    ['walked', 'walk'],
    ['walking', 'walk'],
    ['running', 'run'],
    ['stories', 'story'],
    ['quickly', 'quick'],
    ['happily', 'happy'],
    ['happier', 'happy'],
    ['wolves', 'wolf'],
    ['knives', 'knife'],
    ['boxes', 'box'],
    ['watches', 'watch'],
    ['heroes', 'hero'],
    ['swords', 'sword'],
    ['caring', 'care'], // not car
    ['staring', 'stare'], // not star
    ['cooking', 'cook'], // not the surname Cooke
    ['leaving', 'leave'],
    ['parting', 'part'],
    ['changing', 'change'], // the commoner of chang/change (rank order above)
    ['singing', 'sing'],
    ['locked', 'lock'],
    ['stopped', 'stop'],
    ['loved', 'love'],
    ['passed', 'pass'],
    ['milling', 'mill'],
    ['betting', 'bet'],
    ['gently', 'gentle'],
    ['critically', 'critical'],
    ['cries', 'cry'],
    ['ties', 'tie'],
    ['brightly', 'bright'],
  ])('%s → %s', (word, base) => {
    expect(findBaseForm(word, known)).toBe(base);
  });

  it.each(['news', 'evening', 'shed', 'apply', 'walk', 'run', 'glass', 'unknownwords', 'its'])('%s stays itself', (word) => {
    expect(findBaseForm(word, known)).toBeUndefined();
  });
});
