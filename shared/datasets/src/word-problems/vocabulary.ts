// Words the GSM8K-style generator draws from. Kept small on purpose: the demo
// model learns the arithmetic, not a large vocabulary.

/** A person and the pronouns a sentence about them needs. */
export interface Person {
  name: string;
  subject: 'He' | 'She';
  object: 'him' | 'her';
}

const person = (name: string, female: boolean): Person => ({ name, subject: female ? 'She' : 'He', object: female ? 'her' : 'him' });

export const PEOPLE: readonly Person[] = [
  person('Mia', true),
  person('Leo', false),
  person('Ava', true),
  person('Sam', false),
  person('Zoe', true),
  person('Ben', false),
  person('Lily', true),
  person('Max', false),
  person('Emma', true),
  person('Noah', false),
  person('Ella', true),
  person('Jack', false),
  person('Ana', true),
  person('Tom', false),
  person('Ivy', true),
  person('Omar', false),
];

/** Countable things and the container they come in. */
export interface Thing {
  plural: string;
  container: string;
}

export const THINGS: readonly Thing[] = [
  { plural: 'apples', container: 'bag' },
  { plural: 'pens', container: 'box' },
  { plural: 'cards', container: 'pack' },
  { plural: 'books', container: 'box' },
  { plural: 'stickers', container: 'sheet' },
  { plural: 'marbles', container: 'jar' },
  { plural: 'cookies', container: 'tray' },
  { plural: 'shells', container: 'bucket' },
  { plural: 'coins', container: 'purse' },
  { plural: 'stamps', container: 'album' },
  { plural: 'toys', container: 'box' },
  { plural: 'flowers', container: 'pot' },
];
