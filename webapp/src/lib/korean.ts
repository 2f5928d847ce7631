/**
 * Korean particles that depend on the word before them: whether its last syllable ends in a
 * consonant (jong-seong). A word ending in anything but a Hangul syllable counts as ending in a
 * vowel, which reads naturally for Latin names and digits.
 */

/** The final consonant index of a word's last Hangul syllable; 0 when none. */
function finalConsonant(word: string): number {
  const code = word.charCodeAt(word.length - 1);
  return code >= 0xac00 && code <= 0xd7a3 ? (code - 0xac00) % 28 : 0;
}

/** The jong-seong index of ㄹ. */
const RIEUL = 8;

/** 을 after a final consonant, 를 after a vowel: 봄을, 피자를. */
export function objectParticle(word: string): string {
  return finalConsonant(word) === 0 ? '를' : '을';
}

/** 은 after a final consonant, 는 after a vowel: 운영팀은, 운영자는. */
export function topicParticle(word: string): string {
  return finalConsonant(word) === 0 ? '는' : '은';
}

/** 이 after a final consonant, 가 after a vowel: 운영팀이, 운영자가. */
export function subjectParticle(word: string): string {
  return finalConsonant(word) === 0 ? '가' : '이';
}

/** 으로 after a final consonant other than ㄹ, 로 otherwise: 봄으로, 피자로, 가을로. */
export function directionParticle(word: string): string {
  const last = finalConsonant(word);
  return last === 0 || last === RIEUL ? '로' : '으로';
}
