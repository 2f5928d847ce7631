//! The abuse filter: Korean profanity, sexual insults and slurs, and the contact details
//! and links that spam bots and groomers send in the first messages of a chat.
//!
//! # How the word filter works
//!
//! Text is normalised into a *skeleton*, one element per jamo, each remembering the byte
//! range of the original character it came from:
//!
//! - fullwidth Latin and digits fold to ASCII, halfwidth and compatibility jamo to jamo;
//! - syllables are split into initial, vowel and final jamo (compound vowels and finals into
//!   their parts), so `시발`, `ㅅㅣㅂㅏㄹ` and the English-keyboard `tlqkf` (두벌식) give one
//!   skeleton; a run of Latin letters is read as 두벌식 typing only when it types whole
//!   syllables, so English words stay English;
//! - loose jamo take the role their neighbours give them (a consonant before a vowel starts a
//!   syllable, one after a vowel ends it); a loose consonant with no vowel stays an initial,
//!   which is how `ㅅㅂ` differs from the `ㅅ`+`ㅂ` inside `삿바`;
//! - loose vowels that follow no consonant (`병ㅡ신`, `ㅠㅠ`) are dropped;
//! - spaces, punctuation and a lone `1` between Hangul (`병1신`, `ㅆ1ㅂ`) are dropped; `1`,
//!   `l`, `I`, `|` and `!` between a loose consonant and a syllable read as `ㅣ` (`ㅅ1발`);
//! - a repeated element collapses to one, and a vowel stretched with `ㅇ` (`시이이발`,
//!   `씨바아알`) collapses to the vowel.
//!
//! The list (`data/moderation/words.txt`) and the allow list (`allow.txt`) go through the same
//! normaliser and into two Aho-Corasick automata, built once. Each entry of the list also
//! stands for spellings derived from it by rule (`spellings`), so the list holds words, not
//! every way of typing them:
//!
//! - a syllable may be written as its initial consonant (`ㅅ발`, `ㅈ같네`, `개ㅅㄲ`,
//!   `ㅁㅊ놈`) while one syllable stays whole; in a two-syllable word only the first, since
//!   a lone consonant after a syllable is how chat abbreviations read (`야 ㄷㄷ`), and never
//!   a syllable that starts with `ㅇ`, `ㅋ` or `ㅎ` (`ㅇㅇ`, laughter). Abbreviations made
//!   of initials only (`ㅅㅂ`, `ㅈㄴ`) are listed one by one, as most pairs of initials are
//!   ordinary chat (`ㄱㅅ` 감사);
//! - a `팔`, `발` or `빨` after the first syllable may be written `8`, which reads 팔 and
//!   looks like a B (`시8`, `씹8`); the allow list gets the same (`4시8분` as `시팔분`).
//!
//! A hit must end where a syllable ends (`시바` does not match `시방`); a hit that crosses
//! a space must start at a word and, if it stops inside the last word, cover at least two
//! of its characters (so `시 발` and `병 신` are caught and `세 시 발표`, `그 병 신기하다`,
//! `다시 발견` are not); a hit inside a hit of the allow list (`시발점`, the loanwords and
//! names `도시바`, `니미츠`, `메갈로돈`) is dropped. A hit typed in initials only takes in
//! the initials typed right after it (`ㅅㅂㄹㅁ` is hidden whole), but not laughter
//! (`ㅅㅂㅋㅋ`).
//!
//! Most messages hold no listed word: a first pass builds the skeleton's elements alone
//! and asks the list's automaton whether any spelling occurs at all. Only a message that
//! holds one gets the skeleton with the places of its elements, the allow list and the
//! rules above. The pass reads the elements the full search reads, so it passes nothing
//! that search flags; a test holds it to that over the filter suite and the disguises of
//! every entry.
//!
//! Digits and Latin look-alikes count only in the listed spellings and the derived `8`
//! (`18놈`, `개18`, `ㅅ8`, `c발`, `시bal`): a bare `18` is a number.
//!
//! The middle finger typed as its vowel (`ㅗ`, `ㅗㅗㅗ`) is no word of the list, as the
//! skeleton drops a vowel that follows no consonant: a run of `ㅗ` that no letter or digit
//! touches (laughter may follow, `ㅗㅗㅋㅋ`) is a hit by rule. Next to a letter it spells
//! a syllable (`ㄱㅗ`) or an exclamation (`ㅗㅜㅑ`).
//!
//! # Romanised words
//!
//! Latin words (runs of ASCII letters and digits, through `-`, `.`, `_`) are also read as
//! romanised Korean (`sibal`, `byungsin`). A word and each Hangul entry of the list are
//! folded into a *key* of sounds, so that the usual romanisations of one word share a key:
//! consonants by articulation (`g k` → `k`, `b p f v` → `p`, `j z ch` → `j`, `r l` → `l`,
//! `s sh` → `s`), vowels by sound (`eo eu o u` → `o`, `ae e` → `e`, `ee i` → `i`), repeats
//! once (`ssibal`), digit look-alikes inside a word (`si8al`, `s1bal`). `ssibal`, `shibal`,
//! `sibbal` and `si-bal` all give the key of `시발`. The keys of the list and of the allow
//! list (its Hangul entries and its Latin lines, `sequoia`) go into two more automata; an
//! allowed key that equals a listed one is left out, as it would allow the listed word.
//!
//! A romanised hit must start its word (English words hold keys inside them: `municipal`)
//! and end the word, be followed by a particle (`byungsina`), or end where a syllable ends
//! (`jotgatne`, but not `megal` in `megalith`). A key of fewer than five sounds is too
//! common in English (`body`, `shiba`, `jut`): Hangul entries give none, and a Latin line
//! of the list (`jonna`, `jot`) matches a whole word only.
//!
//! A run of Latin letters is read as 두벌식 typing only when every consonant belongs to a
//! syllable (one initial before a vowel, a final and an initial between vowels), so English
//! words (`dorsal`, `altman`) do not turn into loose jamo.
//!
//! # Contact details
//!
//! `find_contacts` matches regular expressions on a folded copy of the text, and maps what
//! it finds back to the original. The fold is where every disguise of a character is
//! undone, so the patterns and their rules hold for all of them:
//!
//! - fullwidth forms as ASCII, and the decimal digits of every script as ASCII digits
//!   (Arabic-Indic `٠١٠`, mathematical `𝟎𝟏𝟎`, Devanagari, Thai, …);
//! - the numbers of signs as their digits: circled (`①`, `⓪`, `❶`, `⑫`), parenthesised
//!   (`⑴`), with a full stop (`⒈`), superscript and subscript (`¹`, `₁`), keycaps (`1️⃣`),
//!   CJK numerals (`〇一二`; `一` between digits is a dash, `010一1234`);
//! - the vowel `ㅡ`, dashes and tildes as `-`, `。` and `·` as `.`;
//! - invisible characters (zero-width space, joiner and non-joiner, word joiner, byte order
//!   mark, soft hyphen, Hangul fillers) as nothing, so `카\u{200C}톡` reads `카톡`;
//! - loose jamo as the syllable they spell (`ㅋㅏ톡`, `ㅋㅏㅌㅗㄱ`), with `r` and `H`
//!   between a consonant and more Hangul as the vowels they look like (`ㅋr톡`).
//!
//! A phone number is ten or eleven digits, digit words or look-alikes (`o1o`) after `01`
//! or `+82`, with up to three characters that are neither letters nor digits between them.
//! The digit words are the Sino-Korean ones (`공일공`, `영`, `빵`, `일이삼`) and the native
//! numbers (`하나`, `둘`, `셋` … `아홉`), so `공일공 하나둘삼사 오육칠팔` is a number and
//! `하나 둘 셋 하면` is not: the length rule is the same for every way of writing a digit.
//! An e-mail address may spell its `@` (`골뱅이`, `(at)`, `[at]`, `(골뱅이)`, ` at `) and its
//! dots (`닷`, `쩜`, `점`, `(dot)`, `(닷)`, `[.]`, ` dot `, `닷컴`); with a plain ` at ` it
//! must name a mail provider, as "meet at home" is English. A provider named in Hangul
//! (`골뱅이 네이버`) takes a spelled top-level domain after it (`네이버닷컴`). A domain may
//! have spaces around its dots (`naver . com`) or spell them, then only before `com`,
//! `net`, `org` or `kr`. A link's scheme may be spaced (`h t t p s : / /`) or defanged
//! (`hxxps`, `[:]`). One pass over the text tells which patterns can match (ten digits and
//! a zero for a phone, a Latin letter and a dot or two slashes for a link, a Latin letter
//! for a handle), and only those run: most messages hold no contact detail at all.
//!
//! # Known limits
//!
//! The list holds whole words, not sounds: a new misspelling of a syllable needs a new line.
//! English profanity is not caught, nor romanised words spaced apart (`si bal`). The
//! contact masking reads digits and names, not meaning: a number spelled in the words of
//! another language (`zero one zero`) is not masked. Words
//! split by a space inside a longer word are missed (`야시 발`, `병 신아`), and single
//! syllables spaced apart can still form a listed word by chance (`김 씨 발`, `우리 개 새끼
//! 낳았어`). A meaning that depends on context (`병신년` the year 丙申年 against the
//! insult) is decided by the list: `병신년` is flagged; `시바` in Hangul is flagged while
//! the romanised `shiba` (the dog) is not.

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;

use crate::ErrorCode;

const WORDS: &str = include_str!("../data/moderation/words.txt");
const ALLOW: &str = include_str!("../data/moderation/allow.txt");

/// Byte ranges in `text` that hold an abusive word, after the allow list; sorted and
/// disjoint.
pub fn find(text: &str) -> Vec<Range<usize>> {
    let mut hits = Vec::new();
    // Every entry holds a Hangul or Latin letter: most number-only and emoji-only
    // messages need no normalising.
    if !text.chars().any(|c| c.is_alphabetic()) {
        return hits;
    }
    find_in_skeleton(text, &mut hits);
    find_romanised(text, &mut hits);
    find_middle_fingers(text, &mut hits);
    merge(hits)
}

/// The middle finger typed as the vowel `ㅗ` (`ㅗ`, `ㅗㅗㅗ`): a run of it that no letter or
/// digit touches, but for laughter after it (`ㅗㅗㅋㅋ`). The skeleton drops it, as a loose
/// vowel after no consonant; next to a letter it spells a syllable (`ㄱㅗ`, `ㅗㅜㅑ`).
fn find_middle_fingers(text: &str, hits: &mut Vec<Range<usize>>) {
    let finger = |c: char| matches!(fold_width(c), 'ㅗ' | '\u{1169}');
    let mut run: Option<usize> = None;
    let mut before_run = None;
    let mut last = None;
    for (at, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if finger(c) && at < text.len() {
            if run.is_none() {
                run = Some(at);
                before_run = last;
            }
        } else if let Some(start) = run.take() {
            let touches = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            let laughter = matches!(fold_width(c), 'ㅋ' | 'ㅎ');
            if !touches(before_run) && (!touches(Some(c)) || laughter) {
                hits.push(start..at);
            }
        }
        last = Some(c);
    }
}

/// The first pass of the word search, which most messages end in: whether the skeleton of
/// `text` holds any spelling of the list at all. Only then is the skeleton built with the
/// places of its elements and searched for whole hits beside the allow list. It reads the
/// very elements the full search reads, so it passes nothing that search would flag.
fn may_hold_listed_word(text: &str) -> bool {
    LISTS
        .words
        .as_ref()
        .is_some_and(|words| words.is_match(Skeleton::text_of(text).as_str()))
}

/// The hits of the word list in the skeleton of `text`, after the first pass.
fn find_in_skeleton(text: &str, hits: &mut Vec<Range<usize>>) {
    if may_hold_listed_word(text) {
        search_skeleton(text, hits);
    }
}

/// The hits of the word list in the skeleton of `text`: whole, and not inside a hit of
/// the allow list.
fn search_skeleton(text: &str, hits: &mut Vec<Range<usize>>) {
    let Some(words) = LISTS.words.as_ref() else {
        return;
    };
    let skeleton = Skeleton::of(text);
    if skeleton.chars.is_empty() {
        return;
    }
    let allowed: Vec<(usize, usize)> = LISTS
        .allow
        .iter()
        .flat_map(|allow| allow.find_overlapping_iter(skeleton.text.as_str()))
        .map(|m| (skeleton.element_at(m.start()), skeleton.element_at(m.end())))
        .collect();
    for m in words.find_overlapping_iter(skeleton.text.as_str()) {
        let (start, end) = (skeleton.element_at(m.start()), skeleton.element_at(m.end()));
        if !skeleton.is_whole(text, start, end) {
            continue;
        }
        if allowed.iter().any(|&(a, b)| a <= start && end <= b) {
            continue;
        }
        let hit = skeleton.sources[start].start..skeleton.sources[end - 1].end;
        hits.push(extend_initials(text, hit));
    }
}

/// A hit written in loose consonants only (`ㅅㅂ`) stretched over the loose consonants
/// typed right after it: a run of initials abbreviates one phrase (`ㅅㅂㄹㅁ`, `ㅈㄹㄴ`),
/// so the whole run is hidden. `ㅋ` and `ㅎ` are laughter (`ㅅㅂㅋㅋ`) and stay.
fn extend_initials(text: &str, hit: Range<usize>) -> Range<usize> {
    let loose_consonant = |c: char| {
        let c = fold_width(c);
        ('\u{3131}'..='\u{314E}').contains(&c)
    };
    let Some(written) = text.get(hit.clone()) else {
        return hit;
    };
    if !written.chars().all(loose_consonant) {
        return hit;
    }
    let more: usize = text[hit.end..]
        .chars()
        .take_while(|&c| loose_consonant(c) && !matches!(fold_width(c), 'ㅋ' | 'ㅎ'))
        .map(char::len_utf8)
        .sum();
    hit.start..hit.end + more
}

/// Whether `text` holds no abusive word.
pub fn is_clean(text: &str) -> bool {
    find(text).is_empty()
}

/// `text` with each abusive word replaced by as many `*` as it has characters, so the
/// length in characters is kept.
pub fn mask(text: &str) -> String {
    mask_ranges(text, &find(text))
}

/// Refuses a nickname that holds an abusive word.
pub fn check_nickname_words(nickname: &str) -> Result<(), ErrorCode> {
    if is_clean(nickname) {
        Ok(())
    } else {
        Err(ErrorCode::ContentNotAllowed)
    }
}

/// Byte ranges in `text` that hold contact details: Korean mobile numbers (also spelled
/// with digit words, `공일공…`, and look-alikes, `o1o`), messenger IDs after the
/// messenger's name (`카톡 아이디 abc123`, `텔레 @name`), e-mail addresses (also spelled
/// out: `abc 골뱅이 naver 닷컴`, `abc(at)gmail(dot)com`), and links (`http(s)://…`,
/// `hxxps://…`, `www.…`, bare domains such as `abc.com`, `naver . com`, `t.me/x`,
/// `open.kakao.com/o/…`). Fullwidth forms, the digits of other scripts and of signs
/// (`٠١٠`, `𝟎𝟏𝟎`, `⑴`, `¹`, `〇一〇`), native numbers (`하나 둘`), dash look-alikes (`ㅡ`,
/// `–`, `~`), dot look-alikes (`。`, `·`) and loose jamo (`ㅋㅏ톡`) count as what they stand
/// for; invisible characters count as nothing. Sorted and disjoint.
pub fn find_contacts(text: &str) -> Vec<Range<usize>> {
    let Some(c) = CONTACTS.as_ref() else {
        return Vec::new();
    };
    let (folded, signs) = ContactText::of(text);
    let hits = contacts_in(c, folded.text(text), &signs);
    merge(hits.into_iter().map(|r| folded.original(r)).collect())
}

/// The contact details in `text`, already folded.
fn contacts_in(c: &Contacts, text: &str, signs: &Signs) -> Vec<Range<usize>> {
    let mut hits = Vec::new();
    let alnum = |ch: Option<char>| ch.is_some_and(|ch| ch.is_ascii_alphanumeric());
    let before = |at: usize| text[..at].chars().next_back();
    let after = |at: usize| text[at..].chars().next();
    // The patterns with no literal to start from run only on messages that hold what they
    // need: most chat messages hold no contact detail at all.
    let phone_like = signs.digits >= 10 && signs.zero;
    let linked = signs.latin && (signs.dot || signs.slashes >= 2);
    let dotted = signs.latin && (signs.dot || contains_ascii_word(text, "dot"));
    let at_like = signs.latin && (signs.at || contains_ascii_word(text, "at"));
    for m in phone_like
        .then(|| c.phone.find_iter(text))
        .into_iter()
        .flatten()
    {
        // A look-alike letter (`o1o`) must not be part of a word.
        let letter_edge = m.as_str().starts_with(|ch: char| ch.is_ascii_alphabetic())
            && alnum(before(m.start()))
            || m.as_str().ends_with(|ch: char| ch.is_ascii_alphabetic()) && alnum(after(m.end()));
        if !digit_before(text, m.start()) && !digit_after(text, m.end()) && !letter_edge {
            hits.push(m.range());
        }
    }
    let url = linked.then(|| c.url.find_iter(text));
    let spelled = dotted.then(|| c.spelled_url.find_iter(text));
    for m in url
        .into_iter()
        .flatten()
        .chain(spelled.into_iter().flatten())
    {
        let (b, a) = (before(m.start()), after(m.end()));
        if !alnum(b) && b != Some('@') && !alnum(a) {
            hits.push(m.range());
        }
    }
    for caps in at_like
        .then(|| c.email.captures_iter(text))
        .into_iter()
        .flatten()
    {
        let (Some(all), Some(at)) = (caps.get(0), caps.get(2)) else {
            continue;
        };
        // `at` as a plain word is English as often as not ("meet at home dot com"):
        // the address must then be at a mail provider.
        let plain_at = at.as_str().trim().eq_ignore_ascii_case("at");
        let provider = caps
            .get(3)
            .is_some_and(|d| MAIL_PROVIDERS.contains(&d.as_str().to_ascii_lowercase().as_str()))
            || caps.get(4).is_some();
        if !plain_at || provider {
            hits.push(all.range());
        }
    }
    // A handle holds a Latin letter.
    for caps in signs
        .latin
        .then(|| c.messenger.captures_iter(text))
        .into_iter()
        .flatten()
    {
        let (Some(name), Some(handle)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        // 온라인, 가이드라인: 라인 inside a word is not the messenger; nor is ㅋㅌ after
        // laughter (ㅋㅋㅋㅌ).
        let inside_word = before(name.start()).is_some_and(is_hangul);
        let has_letter = handle.as_str().chars().any(|c| c.is_ascii_alphabetic());
        let glued = alnum(after(handle.end()));
        let bound = matches!(name.as_str(), "라인" | "ㅋㅌ");
        if !(bound && inside_word) && has_letter && !glued {
            hits.push(handle.range());
        }
    }
    hits
}

/// What one pass over a folded text tells the contact patterns.
#[derive(Default)]
struct Signs {
    /// Digits, digit words and digit look-alikes.
    digits: usize,
    /// A zero among them.
    zero: bool,
    /// An ASCII letter.
    latin: bool,
    /// A dot or a spelled one (`닷`, `쩜`, `점`).
    dot: bool,
    /// An `@` or a spelled one (`골뱅이`, `앳`).
    at: bool,
    /// Slashes, as a link's `://` has two (also spaced, `: / /`).
    slashes: usize,
}

impl Signs {
    /// Counts one character of the folded text.
    fn count(&mut self, c: char) {
        match c {
            '0' | 'ㅇ' | '공' | '영' | '빵' => {
                self.digits += 1;
                self.zero = true;
            }
            'o' | 'O' => {
                self.digits += 1;
                self.zero = true;
                self.latin = true;
            }
            'l' | 'I' => {
                self.digits += 1;
                self.latin = true;
            }
            // Sino-Korean digits, and one syllable of each native number (하나, 둘, 셋,
            // 넷, 다섯, 여섯, 일곱, 여덟, 아홉).
            '1'..='9'
            | '|'
            | '일'
            | '이'
            | '삼'
            | '사'
            | '오'
            | '육'
            | '륙'
            | '칠'
            | '팔'
            | '구'
            | '하'
            | '둘'
            | '셋'
            | '넷'
            | '섯'
            | '곱'
            | '덟'
            | '홉' => self.digits += 1,
            'a'..='z' | 'A'..='Z' => self.latin = true,
            '.' | '닷' | '쩜' | '점' => self.dot = true,
            '@' | '앳' | '골' => self.at = true,
            '/' => self.slashes += 1,
            _ => {}
        }
    }
}

/// Whether `text` holds `word` (ASCII, lowercase) in any case.
fn contains_ascii_word(text: &str, word: &str) -> bool {
    text.as_bytes()
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
}

/// Mail providers an address spelled with a plain `at` must name.
const MAIL_PROVIDERS: [&str; 13] = [
    "gmail",
    "naver",
    "daum",
    "hanmail",
    "nate",
    "kakao",
    "hotmail",
    "outlook",
    "yahoo",
    "icloud",
    "proton",
    "protonmail",
    "korea",
];

/// A text for the contact patterns: the original when nothing in it needs folding (most
/// messages), else a folded copy made of pieces, each with where it starts in the copy
/// and the characters of the original it stands for (one, or a few: `ㅋㅏ` for `카`, a
/// digit and the keycap marks after it).
enum ContactText {
    Original,
    Folded {
        text: String,
        pieces: Vec<(usize, Range<usize>)>,
    },
}

impl ContactText {
    /// The text to match and its signs, in one pass over it.
    fn of(text: &str) -> (Self, Signs) {
        let mut signs = Signs::default();
        let mut first_fold = None;
        for (at, c) in text.char_indices() {
            let plain = (c.is_ascii() && c != '~') || ('\u{AC00}'..='\u{D7A3}').contains(&c);
            if !plain && folds(c) {
                first_fold = Some(at);
                break;
            }
            signs.count(c);
        }
        let Some(first) = first_fold else {
            return (Self::Original, signs);
        };
        // Fold from the first character that needs it, counting the rest.
        let mut folded = String::with_capacity(text.len());
        folded.push_str(&text[..first]);
        let mut pieces: Vec<(usize, Range<usize>)> = text[..first]
            .char_indices()
            .map(|(at, c)| (at, at..at + c.len_utf8()))
            .collect();
        let starts: Vec<usize> = text[first..]
            .char_indices()
            .map(|(at, _)| first + at)
            .collect();
        let chars: Vec<char> = text[first..].chars().collect();
        let end_of = |n: usize| starts.get(n).copied().unwrap_or(text.len());
        let mut i = 0;
        while i < chars.len() {
            let (fold, len) = match compose(&chars, i) {
                Some((syllable, len)) => (Fold::Char(syllable), len),
                None if chars[i] == '一' => {
                    // 一 is a digit among numerals (〇一〇), else a dash (010一1234).
                    let numeral = |n: Option<usize>| {
                        n.and_then(|n| chars.get(n))
                            .is_some_and(|&c| is_cjk_numeral(c))
                    };
                    let one = numeral(i.checked_sub(1)) || numeral(Some(i + 1));
                    (Fold::Char(if one { '1' } else { '-' }), 1)
                }
                None => (fold_contact(chars[i]), 1),
            };
            let source = starts[i]..end_of(i + len);
            i += len;
            let out = match fold {
                Fold::Drop => continue,
                Fold::Mark => {
                    if let Some((_, last)) = pieces.last_mut() {
                        last.end = source.end;
                    }
                    continue;
                }
                Fold::Char(f) => [None, Some(f)],
                Fold::Number(n) => [(n >= 10).then(|| digit(n / 10)), Some(digit(n % 10))],
            };
            pieces.push((folded.len(), source));
            for f in out.into_iter().flatten() {
                signs.count(f);
                folded.push(f);
            }
        }
        (
            Self::Folded {
                text: folded,
                pieces,
            },
            signs,
        )
    }

    fn text<'a>(&'a self, original: &'a str) -> &'a str {
        match self {
            Self::Original => original,
            Self::Folded { text, .. } => text,
        }
    }

    /// The range in the original text of a range in the folded one: from the piece its
    /// start falls in to the piece its end falls in.
    fn original(&self, range: Range<usize>) -> Range<usize> {
        let Self::Folded { pieces, .. } = self else {
            return range;
        };
        let first = pieces.partition_point(|(f, _)| *f <= range.start);
        let last = pieces.partition_point(|(f, _)| *f < range.end);
        match (
            first.checked_sub(1).and_then(|n| pieces.get(n)),
            last.checked_sub(1).and_then(|n| pieces.get(n)),
        ) {
            (Some((_, a)), Some((_, b))) => a.start..b.end,
            _ => range,
        }
    }
}

fn is_cjk_numeral(c: char) -> bool {
    matches!(
        c,
        '〇' | '零' | '一' | '二' | '三' | '四' | '五' | '六' | '七' | '八' | '九'
    )
}

/// The ASCII digit of `n` (0 to 9).
fn digit(n: u32) -> char {
    char::from_digit(n, 10).unwrap_or('0')
}

/// What a character of the original text becomes for the contact patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fold {
    /// Nothing: an invisible character (`U+200C`, `U+00AD`, …).
    Drop,
    /// Part of the character before it: a variation selector, a keycap (`1️⃣`).
    Mark,
    Char(char),
    /// A number, 0 to 20, in ASCII digits (`⑫` as `12`).
    Number(u32),
}

/// Whether a character is not what the contact patterns read: it folds, or may start
/// jamo that spell a syllable.
fn folds(c: char) -> bool {
    c == '一' || fold_contact(c) != Fold::Char(c) || INITIALS.contains(&fold_width(c))
}

/// A character as the contact patterns read it: fullwidth forms as ASCII, decimal digits
/// of any script as ASCII digits (`fold_width`), dash look-alikes (the vowel `ㅡ`, en and
/// em dashes, the minus sign, tildes) as `-`, dot look-alikes (`。`, `·`, `ㆍ`) as `.`,
/// the numbers of signs (circled `①`, `❶`, parenthesised `⑴`, with a full stop `⒈`,
/// superscript `¹` and subscript `₁`, CJK `〇二三`) as their digits, and invisible
/// characters (zero-width space, joiner and non-joiner, word joiner, byte order mark,
/// soft hyphen, Hangul fillers) as nothing. `一` is read by `ContactText::of`, as its
/// neighbours tell a digit from a dash.
fn fold_contact(c: char) -> Fold {
    let n = c as u32;
    let from = |first: u32, value: u32| Fold::Number(n - first + value);
    match c {
        'ㅡ'
        | '\u{2010}'..='\u{2015}'
        | '\u{2212}'
        | '\u{FE58}'
        | '\u{FE63}'
        | '\u{FF0D}'
        | '\u{30FC}'
        | '~'
        | '\u{301C}'
        | '\u{223C}'
        | '\u{FF5E}' => Fold::Char('-'),
        '\u{3002}' | '\u{FF61}' | '\u{FF0E}' | '\u{00B7}' | '\u{318D}' | '\u{2219}'
        | '\u{2022}' | '\u{30FB}' => Fold::Char('.'),
        // ① to ⑳, ⑴ to ⒇, ⒈ to ⒛.
        '\u{2460}'..='\u{2473}' => from(0x2460, 1),
        '\u{2474}'..='\u{2487}' => from(0x2474, 1),
        '\u{2488}'..='\u{249B}' => from(0x2488, 1),
        // ⓪, ⓿, 🄀 (0.), the dingbat zeros, 〇 and 零.
        '\u{24EA}' | '\u{24FF}' | '\u{1F100}' | '\u{1F10B}' | '\u{1F10C}' | '\u{3007}'
        | '\u{96F6}' => Fold::Number(0),
        // ⓫ to ⓴, ⓵ to ⓾, ❶ to ❿, ➀ to ➉, ➊ to ➓, 🄁 (0,) to 🄊 (9,).
        '\u{24EB}'..='\u{24F4}' => from(0x24EB, 11),
        '\u{24F5}'..='\u{24FE}' => from(0x24F5, 1),
        '\u{2776}'..='\u{277F}' => from(0x2776, 1),
        '\u{2780}'..='\u{2789}' => from(0x2780, 1),
        '\u{278A}'..='\u{2793}' => from(0x278A, 1),
        '\u{1F101}'..='\u{1F10A}' => from(0x1F101, 0),
        // Superscripts and subscripts.
        '\u{2070}' => Fold::Number(0),
        '\u{00B9}' => Fold::Number(1),
        '\u{00B2}' => Fold::Number(2),
        '\u{00B3}' => Fold::Number(3),
        '\u{2074}'..='\u{2079}' => from(0x2074, 4),
        '\u{2080}'..='\u{2089}' => from(0x2080, 0),
        // CJK numerals (一 in `ContactText::of`).
        '二' => Fold::Number(2),
        '三' => Fold::Number(3),
        '四' => Fold::Number(4),
        '五' => Fold::Number(5),
        '六' => Fold::Number(6),
        '七' => Fold::Number(7),
        '八' => Fold::Number(8),
        '九' => Fold::Number(9),
        '\u{00AD}'
        | '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FEFF}'
        | '\u{FFA0}' => Fold::Drop,
        '\u{FE00}'..='\u{FE0F}' | '\u{20E3}' => Fold::Mark,
        c => Fold::Char(fold_width(c)),
    }
}

/// The syllable that loose jamo starting at `chars[i]` spell, and how many they are: a
/// consonant, the vowel after it, and a consonant after that which starts no syllable of
/// its own (`ㅋㅏ톡`, `ㅋㅏㅌㅗㄱ` as `카톡`). Between a consonant and more Hangul, `r`
/// and `H` read as the vowels they look like, `ㅏ` and `ㅐ` (`ㅋr톡`, `ㄲH톡`); `ㅡ`
/// spells a syllable only before more Hangul, else it is a dash.
fn compose(chars: &[char], i: usize) -> Option<(char, usize)> {
    let at = |n: usize| chars.get(n).map(|&c| fold_width(c));
    let initial = INITIALS.iter().position(|&x| Some(x) == at(i))?;
    let hangul_after = |n: usize| at(n).is_some_and(is_hangul);
    let vowel = match at(i + 1)? {
        'r' if hangul_after(i + 2) => 'ㅏ',
        'H' if hangul_after(i + 2) => 'ㅐ',
        'ㅡ' if !hangul_after(i + 2) => return None,
        v if is_compat_vowel(v) => v,
        _ => return None,
    };
    let starts_syllable = at(i + 3).is_some_and(|c| is_compat_vowel(c) || c == 'r' || c == 'H');
    let fin = at(i + 2)
        .filter(|_| !starts_syllable)
        .and_then(|c| FINALS.iter().position(|&x| x == c))
        .filter(|&t| t > 0);
    let n = (initial * 21 + (vowel as usize - 0x314F)) * 28 + fin.unwrap_or(0);
    let syllable = char::from_u32(0xAC00 + n as u32)?;
    Some((syllable, if fin.is_some() { 3 } else { 2 }))
}

/// `text` with each contact detail replaced by as many `*` as it has characters.
pub fn mask_contacts(text: &str) -> String {
    mask_ranges(text, &find_contacts(text))
}

fn digit_before(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit())
}

fn digit_after(text: &str, at: usize) -> bool {
    text[at..]
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
}

fn mask_ranges(text: &str, ranges: &[Range<usize>]) -> String {
    if ranges.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        out.push_str(&text[at..r.start]);
        out.extend(std::iter::repeat_n('*', text[r.clone()].chars().count()));
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Sorts ranges and joins the ones that overlap.
fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start < last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

struct Lists {
    words: Option<AhoCorasick>,
    allow: Option<AhoCorasick>,
    /// The romanised keys of the listed words (`sibal`, `byungsin`).
    roman: Option<AhoCorasick>,
    /// The romanised keys of the allowed words, and the allow list's Latin lines
    /// (`sequoia`).
    roman_allow: Option<AhoCorasick>,
}

static LISTS: LazyLock<Lists> = LazyLock::new(|| {
    // A Hangul entry with a short key (`시바`, `봊이`) would flag English words (`shiba`,
    // `body`): only Latin lines give short keys.
    let roman: Vec<String> = entries(WORDS)
        .filter_map(|entry| {
            roman_key(entry).filter(|key| key.len() >= SHORT_KEY || is_latin_line(entry))
        })
        .collect();
    // Keys are coarse: an allowed Hangul word that sounds just like a listed one (`닥쳐오`
    // and `닥쳐` are both `takjo`) would allow the listed word itself, so it is left out.
    let roman_allow: Vec<String> = entries(ALLOW)
        .filter_map(|entry| {
            roman_key(entry).filter(|key| is_latin_line(entry) || !roman.contains(key))
        })
        .collect();
    Lists {
        // Latin lines (`jonna`) are romanised spellings, for the romanised automata only.
        words: automaton(
            entries(WORDS)
                .filter(|entry| !is_latin_line(entry))
                .flat_map(spellings)
                .map(|s| Skeleton::of(&s).text),
        ),
        allow: automaton(
            entries(ALLOW)
                .filter(|entry| !is_latin_line(entry))
                .flat_map(digit_spellings)
                .map(|s| Skeleton::of(&s).text),
        ),
        roman: automaton(roman.into_iter()),
        roman_allow: automaton(roman_allow.into_iter()),
    }
});

/// Whether a list entry is a romanised spelling, written in Latin letters only.
fn is_latin_line(entry: &str) -> bool {
    entry.chars().all(|c| c.is_ascii_alphabetic())
}

/// The lines of a list that hold an entry: comments and blank lines left out.
fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
}

/// The automaton of a list's patterns. Building fails only past size limits a list of
/// this length never nears; should it fail, the list matches nothing rather than the
/// server stopping.
fn automaton(patterns: impl Iterator<Item = String>) -> Option<AhoCorasick> {
    let mut patterns: Vec<String> = patterns.filter(|p| !p.is_empty()).collect();
    patterns.sort_unstable();
    patterns.dedup();
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .build(&patterns)
        .ok()
}

/// Entries this long or longer get no abbreviated spellings (2^n of them).
const MAX_ABBREVIATED_SYLLABLES: usize = 6;

/// The spellings an entry of the word list stands for: the entry, and the ones derived
/// from it by two rules, so the list need not spell them out:
///
/// - a syllable may be written as its initial consonant (`ㅅ발`, `ㅈ같`, `개ㅅㄲ`,
///   `ㅁㅊ놈`), as long as one syllable stays whole. In a two-syllable word only the
///   first may: a lone consonant after a syllable is how chat abbreviations read
///   (`야 ㄷㄷ`, `개ㄴㄴ`), so the few that are insults are listed (`시ㅂ`, `병ㅅ`). A
///   syllable that starts with `ㅇ`, `ㅋ` or `ㅎ` is never abbreviated: those jamo are
///   `ㅇㅇ` (yes) and laughter (`ㅎㅎ 형`, `흑ㅎㅎ`);
/// - a syllable `팔`, `발` or `빨` after the first may be written `8`, which reads 팔
///   and looks like a B (`시8`, `씹8`, and with the first rule `ㅅ8`).
///
/// All-initial abbreviations (`ㅅㅂ`, `ㅈㄴ`) are listed one by one: most pairs of
/// initials are ordinary chat (`ㅇㄷ` 어디, `ㄱㄴ` 가능).
fn spellings(entry: &str) -> Vec<String> {
    let chars: Vec<char> = entry.chars().collect();
    if chars.len() < 2 || !chars.iter().all(|&c| syllable_initial(c).is_some()) {
        return vec![entry.to_owned()];
    }
    let abbreviate = chars.len() < MAX_ABBREVIATED_SYLLABLES;
    let options: Vec<Vec<char>> = chars
        .iter()
        .enumerate()
        .map(|(n, &c)| {
            let mut options = vec![c];
            if n > 0 && matches!(c, '팔' | '발' | '빨') {
                options.push('8');
            }
            let last_of_two = chars.len() == 2 && n == 1;
            match syllable_initial(c) {
                Some(initial)
                    if abbreviate && !last_of_two && !matches!(initial, 'ㅇ' | 'ㅋ' | 'ㅎ') =>
                {
                    options.push(initial)
                }
                _ => {}
            }
            options
        })
        .collect();
    let mut out = Vec::new();
    let mut choice = vec![0usize; chars.len()];
    loop {
        let spelling: Vec<char> = choice.iter().zip(&options).map(|(&k, o)| o[k]).collect();
        let whole = spelling
            .iter()
            .any(|&c| syllable_initial(c).is_some() || c == '8');
        // `ㅅ스` would fold into `스`: a repeated element counts once.
        let folds = spelling.windows(2).any(|pair| {
            syllable_initial(pair[0]).is_none()
                && (Some(pair[0]) == syllable_initial(pair[1]) || pair[0] == pair[1])
        });
        if whole && !folds {
            out.push(spelling.into_iter().collect());
        }
        // The next combination, as an odometer over the options.
        let mut n = 0;
        loop {
            let Some(k) = choice.get_mut(n) else {
                return out;
            };
            *k += 1;
            if *k < options[n].len() {
                break;
            }
            *k = 0;
            n += 1;
        }
    }
}

/// The spellings of an allow-list entry: the entry, and `8` for a `팔` or `발` after its
/// first syllable, so that what the word list reads as `시8` is allowed where `시팔` is
/// (`4시8분`).
fn digit_spellings(entry: &str) -> Vec<String> {
    let mut out = vec![entry.to_owned()];
    let digits: String = entry
        .chars()
        .enumerate()
        .map(|(n, c)| {
            if n > 0 && matches!(c, '팔' | '발') {
                '8'
            } else {
                c
            }
        })
        .collect();
    if digits != entry {
        out.push(digits);
    }
    out
}

/// The initial consonant of a Hangul syllable (compatibility jamo).
fn syllable_initial(c: char) -> Option<char> {
    let n = (c as u32).checked_sub(0xAC00)?;
    (n < 11172).then(|| INITIALS[(n / (21 * 28)) as usize])
}

struct Contacts {
    phone: Regex,
    url: Regex,
    /// Domains written with spaces or spelled dots (`naver . com`, `naver 닷컴`).
    spelled_url: Regex,
    /// E-mail addresses, also with a spelled `@` and dots.
    email: Regex,
    messenger: Regex,
}

/// The contact patterns. They are constants known to compile; were one not to, contacts
/// go unmasked rather than the server stopping.
static CONTACTS: LazyLock<Option<Contacts>> = LazyLock::new(|| {
    // Up to three characters that are neither letters nor digits: spaces, dashes, dots,
    // brackets, emoji.
    const SEP: &str = r"[^\p{L}\p{N}]{0,3}";
    let zero = "(?:[0oOㅇ]|공|영|빵)";
    let one = "(?:[1lI|]|일)";
    // Sino-Korean and native numbers; `일곱` before `일`, as the first that matches is
    // taken.
    let d = "(?:[0-9oOlI|ㅇ]|공|영|빵|일곱|일|이|삼|사|오|육|륙|칠|팔|구|하나|둘|셋|넷|다섯|여섯|여덟|아홉)";
    let third = "(?:[016789oOlI|ㅇ]|공|영|빵|일곱|일|육|륙|칠|팔|구|하나|여섯|여덟|아홉)";
    let phone = format!(r"(?:(?:\+82|82){SEP}1|{zero}{SEP}{one}){SEP}{third}(?:{SEP}{d}){{7,8}}");
    let tld = "com|net|org|kr|io|me|ly|gg|xyz|app|link|site|info|biz|tv|cc|dev|shop|club|top";
    // The scheme also spaced (`h t t p s : / /`) or defanged (`hxxp`, `[:]`).
    let scheme = r"h\s?[tx]\s?[tx]\s?p\s?(?:s\s?)?(?::|\[:\]|\(:\))\s?/\s?/\s?";
    let url = format!(
        r"(?i)(?:{scheme}[^\s]+|www\.[^\s]+|[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)*\.(?:{tld})(?:/[A-Za-z0-9_\-./?=&%#~+]*)?)"
    );
    // A dot with spaces around it, spelled, or either in brackets (`.`, `닷`, `쩜`, `점`,
    // `(dot)`, `[.]`, `(닷)`, ` dot `).
    let dot = r"(?:\s*(?:\.|닷|쩜|점|[(\[{<]\s*(?:dot|\.|닷|쩜|점)\s*[)\]}>])\s*|\s+dot\s+)";
    let spelled_url = format!(
        r"(?i)[a-z0-9][a-z0-9\-]*(?:{dot}[a-z0-9][a-z0-9\-]*)*{dot}(?:com|net|org|co{dot}kr|kr|컴|넷)(?:\s*/\s*[A-Za-z0-9_\-.?=&%#~+]+)*"
    );
    let at = r"(?:\s*(?:@|골뱅이|앳|[(\[{<]\s*(?:at|@|골뱅이|앳)\s*[)\]}>])\s*|\s+at\s+)";
    let providers = "네이버|지메일|다음|한메일|네이트|카카오|핫메일";
    let email = format!(
        r"(?i)([A-Za-z0-9._%+\-]+)({at})(?:([A-Za-z0-9\-]+)(?:{dot}[A-Za-z0-9\-]+)*{dot}(?:[a-z]{{2,6}}|컴|넷)|({providers})(?:{dot}(?:com|net|kr|컴|넷))?)"
    );
    let names = "카카오톡|카카오\\s*톡|카카오|카\\s*[.\\-_]?\\s*톡|카똑|까톡|깨톡|ㅋㅌ|텔레그램|텔레그렘|텔레|텔그|라인|인스타그램|인스타|디스코드|디코|위챗|스냅챗|스냅|페이스북|페북|왓츠앱|틱톡|오픈채팅|오픈톡|kakao\\s*talk|kakao|katalk|telegram|instagram|insta|discord|wechat|snapchat|facebook|whatsapp|tiktok|아이디|아디";
    let messenger = format!(
        r"(?i)({names})(?:\s*(?:아이디|아디|id|주소|계정))?(?:은|는|이|가|로|으로|도)?\s*[:：=\-]?\s*(@?[A-Za-z0-9][A-Za-z0-9_.\-]{{1,31}})"
    );
    Some(Contacts {
        phone: Regex::new(&phone).ok()?,
        url: Regex::new(&url).ok()?,
        spelled_url: Regex::new(&spelled_url).ok()?,
        email: Regex::new(&email).ok()?,
        messenger: Regex::new(&messenger).ok()?,
    })
});

// ---------------------------------------------------------------------------------------
// Normalisation

/// The normalised form of a text: one char per element, the byte range in the original
/// text each element stands for, and the word (between spaces) it sits in.
#[derive(Debug, Default)]
pub(crate) struct Skeleton {
    /// The elements, as one string for the automata.
    pub(crate) text: String,
    /// The elements.
    pub(crate) chars: Vec<char>,
    /// For each element, the byte range of the original character it came from.
    pub(crate) sources: Vec<Range<usize>>,
    /// Byte offset of each element in `text`.
    offsets: Vec<usize>,
    /// For each element, the word it sits in (words are split by whitespace).
    words: Vec<u32>,
    /// Byte range of each word in the original text.
    word_spans: Vec<Range<usize>>,
}

/// The role of a jamo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Initial,
    Vowel,
    Final,
    /// A loose consonant, whose role its neighbours decide.
    Loose,
}

/// One piece of the text on its way to the skeleton.
#[derive(Debug, Clone, Copy)]
enum Piece {
    /// A jamo (compatibility form, simple, never compound) and its role.
    Jamo(char, Role),
    /// An ASCII letter, lowercased, or a digit.
    Plain(char),
}

struct Raw {
    piece: Piece,
    source: Range<usize>,
    word: u32,
    /// From a syllable, not a loose jamo or a converted Latin letter.
    syllable: bool,
}

impl Skeleton {
    /// Normalises `text`.
    pub(crate) fn of(text: &str) -> Self {
        let raws = pieces(text);
        let mut out = Skeleton {
            text: String::with_capacity(text.len()),
            chars: Vec::with_capacity(raws.len()),
            sources: Vec::with_capacity(raws.len()),
            offsets: Vec::with_capacity(raws.len()),
            words: Vec::with_capacity(raws.len()),
            word_spans: word_spans(text),
        };
        walk(&raws, |step| match step {
            Step::Element(c, raw) => {
                out.offsets.push(out.text.len());
                out.text.push(c);
                out.chars.push(c);
                out.sources.push(raw.source.clone());
                out.words.push(raw.word);
            }
            Step::Folded(raw) => {
                if let Some(s) = out.sources.last_mut() {
                    s.end = s.end.max(raw.source.end);
                }
            }
        });
        out
    }

    /// The elements of `text`'s skeleton alone, as `of` gives them in `text`, without
    /// what a hit needs to be placed: the first pass of `find`.
    fn text_of(text: &str) -> String {
        let raws = pieces(text);
        let mut out = String::with_capacity(text.len());
        walk(&raws, |step| {
            if let Step::Element(c, _) = step {
                out.push(c);
            }
        });
        out
    }

    /// The element that starts at byte `at` of `text` (or the end).
    fn element_at(&self, at: usize) -> usize {
        self.offsets.partition_point(|&o| o < at)
    }

    /// Whether elements `start..end` make a hit that ends at a syllable's end and, when it
    /// crosses a space, starts at a word and keeps to the words it spans.
    fn is_whole(&self, text: &str, start: usize, end: usize) -> bool {
        let (Some(&last), Some(&first)) = (self.chars.get(end - 1), self.chars.get(start)) else {
            return false;
        };
        if let Some(&next) = self.chars.get(end) {
            let continues = (is_vowel(next) && (is_initial(last) || is_vowel(last)))
                || (is_final(next) && (is_vowel(last) || is_final(last)))
                || (last.is_ascii_digit() && next.is_ascii_digit());
            if continues {
                return false;
            }
        }
        // A hit that starts with a digit or a Latin letter (`18놈`, `c발`) must not start
        // inside a number or a Latin word.
        let before = start.checked_sub(1).and_then(|b| self.chars.get(b));
        if (first.is_ascii_digit() && before.is_some_and(char::is_ascii_digit))
            || (first.is_ascii_lowercase() && before.is_some_and(char::is_ascii_lowercase))
        {
            return false;
        }
        let (w0, w1) = (self.words[start], self.words[end - 1]);
        if w0 == w1 {
            return true;
        }
        let (Some(first_word), Some(last_word)) = (
            self.word_spans.get(w0 as usize),
            self.word_spans.get(w1 as usize),
        ) else {
            return false;
        };
        if self.sources[start].start != first_word.start {
            return false;
        }
        let covered_end = self.sources[end - 1].end;
        // Inside the last word the hit must cover it all or at least two characters.
        covered_end >= last_word.end
            || text
                .get(last_word.start..covered_end)
                .is_some_and(|covered| covered.chars().count() >= 2)
    }
}

/// One step of the walk from pieces to elements.
enum Step<'a> {
    /// The piece is the next element, `char`.
    Element(char, &'a Raw),
    /// The piece folds into the element before it (a repeat, a stretched vowel).
    Folded(&'a Raw),
}

/// Turns pieces into elements. A repeated element (ㅅㅅㅂ, ssibal) counts once; digits
/// are kept as typed. A vowel stretched with ㅇ (바아알) counts once: the ㅇ and the vowel
/// after it fold into it.
fn walk<'a>(raws: &'a [Raw], mut step: impl FnMut(Step<'a>)) {
    let mut last: Option<char> = None;
    let mut last_word = None;
    let mut skip_vowel = false;
    for (i, raw) in raws.iter().enumerate() {
        let c = encode(raw.piece);
        let repeated = last == Some(c) && !c.is_ascii_digit();
        let stretch = c == 'ᄋ'
            && last_word == Some(raw.word)
            && last.is_some_and(is_vowel)
            && raws.get(i + 1).map(|r| encode(r.piece)) == last
            && !raws
                .get(i + 2)
                .is_some_and(|r| last.is_some_and(|v| compound_vowel(v, encode(r.piece))));
        if repeated || stretch || std::mem::take(&mut skip_vowel) {
            skip_vowel = stretch;
            if last.is_some() {
                step(Step::Folded(raw));
            }
            continue;
        }
        last = Some(c);
        last_word = Some(raw.word);
        step(Step::Element(c, raw));
    }
}

/// Byte ranges of the words of `text` (runs without whitespace).
fn word_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                spans.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push(s..text.len());
    }
    spans
}

/// The kind of one original character after folding.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Syllable(char),
    /// A compatibility jamo, possibly compound.
    Jamo(char),
    /// A conjoining jamo with its role.
    Conjoining(char, Role),
    /// An ASCII letter and whether it was upper case.
    Letter(char, bool),
    Digit(char),
    Space,
    Other(char),
}

fn kind(c: char) -> Kind {
    let c = fold_width(c);
    match c {
        '\u{AC00}'..='\u{D7A3}' => Kind::Syllable(c),
        '\u{3131}'..='\u{3163}' => Kind::Jamo(c),
        '\u{1100}'..='\u{1112}' => Kind::Conjoining(INITIALS[c as usize - 0x1100], Role::Initial),
        '\u{1161}'..='\u{1175}' => Kind::Conjoining(vowel(c as u32 - 0x1161), Role::Vowel),
        '\u{11A8}'..='\u{11C2}' => Kind::Conjoining(FINALS[c as usize - 0x11A8 + 1], Role::Final),
        'a'..='z' => Kind::Letter(c, false),
        'A'..='Z' => Kind::Letter(c.to_ascii_lowercase(), true),
        '0'..='9' => Kind::Digit(c),
        c if c.is_whitespace() => Kind::Space,
        c => Kind::Other(c),
    }
}

/// Fullwidth ASCII to ASCII, halfwidth Hangul jamo to compatibility jamo, and the
/// decimal digits of every script (Arabic-Indic `٠١٢`, Devanagari `०१२`, mathematical
/// `𝟎𝟏𝟐`, …) to ASCII digits, as fullwidth `０１２` are.
fn fold_width(c: char) -> char {
    let u = c as u32;
    let folded = match u {
        0xFF01..=0xFF5E => u - 0xFEE0,
        0x3000 => 0x20,
        0xFFA1..=0xFFBE => u - 0xFFA1 + 0x3131,
        0xFFC2..=0xFFC7 => u - 0xFFC2 + 0x314F,
        0xFFCA..=0xFFCF => u - 0xFFCA + 0x3155,
        0xFFD2..=0xFFD7 => u - 0xFFD2 + 0x315B,
        0xFFDA..=0xFFDC => u - 0xFFDA + 0x3161,
        0x0660.. if !(0xAC00..=0xD7A3).contains(&u) => return decimal_digit(u).unwrap_or(c),
        _ => u,
    };
    char::from_u32(folded).unwrap_or(c)
}

/// The ASCII digit of a decimal digit of another script.
fn decimal_digit(u: u32) -> Option<char> {
    let n = DIGIT_ZEROS.partition_point(|&zero| zero <= u);
    let zero = DIGIT_ZEROS[n.checked_sub(1)?];
    (u - zero < 10).then(|| digit(u - zero))
}

/// The zeros of the decimal digits (general category `Nd`) past ASCII, to Unicode 16:
/// each script has its ten digits in a row. Fullwidth digits fold with the fullwidth
/// forms.
const DIGIT_ZEROS: [u32; 74] = [
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0x104A0, 0x10D30, 0x10D40, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
    0x11650, 0x116C0, 0x116D0, 0x116DA, 0x11730, 0x118E0, 0x11950, 0x11BF0, 0x11C50, 0x11D50,
    0x11DA0, 0x11F50, 0x16130, 0x16A60, 0x16AC0, 0x16B50, 0x16D70, 0x1CCF0, 0x1D7CE, 0x1D7D8,
    0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E5F1, 0x1E950, 0x1FBF0,
];

fn is_hangul(c: char) -> bool {
    matches!(
        fold_width(c),
        '\u{AC00}'..='\u{D7A3}' | '\u{3131}'..='\u{3163}' | '\u{1100}'..='\u{11FF}'
    )
}

/// Turns the original text into pieces, each with its source range and word.
fn pieces(text: &str) -> Vec<Raw> {
    let chars: Vec<(usize, char, Kind)> =
        text.char_indices().map(|(i, c)| (i, c, kind(c))).collect();
    let hangul_at = |j: usize| {
        chars.get(j).is_some_and(|&(_, _, k)| {
            matches!(k, Kind::Syllable(_) | Kind::Jamo(_) | Kind::Conjoining(..))
        })
    };
    let syllable_at = |j: usize| {
        chars
            .get(j)
            .is_some_and(|&(_, _, k)| matches!(k, Kind::Syllable(_)))
    };
    let loose_consonant_at = |j: usize| {
        chars
            .get(j)
            .is_some_and(|&(_, _, k)| matches!(k, Kind::Jamo(c) if !is_compat_vowel(c)))
    };
    let mut raws: Vec<Raw> = Vec::with_capacity(text.len());
    let mut word = 0u32;
    let mut in_word = false;
    let mut i = 0;
    while i < chars.len() {
        let (at, c, k) = chars[i];
        let source = at..at + c.len_utf8();
        if k == Kind::Space {
            if in_word {
                word += 1;
                in_word = false;
            }
            i += 1;
            continue;
        }
        in_word = true;
        let looks_like_i = matches!(c, '1' | 'l' | 'I' | '|' | '!' | '１' | 'ｌ' | 'Ｉ');
        if looks_like_i && i > 0 && hangul_at(i + 1) {
            if loose_consonant_at(i - 1) && syllable_at(i + 1) {
                // ㅅ1발: the 1 is the vowel ㅣ.
                raws.push(Raw {
                    piece: Piece::Jamo('ㅣ', Role::Vowel),
                    source,
                    word,
                    syllable: false,
                });
                i += 1;
                continue;
            }
            if hangul_at(i - 1) {
                // 병1신: the 1 only splits the word.
                i += 1;
                continue;
            }
        }
        match k {
            Kind::Syllable(s) => {
                let n = s as u32 - 0xAC00;
                let (l, v, t) = (n / (21 * 28), (n / 28) % 21, n % 28);
                let mut push = |piece| {
                    raws.push(Raw {
                        piece,
                        source: source.clone(),
                        word,
                        syllable: true,
                    })
                };
                push(Piece::Jamo(INITIALS[l as usize], Role::Initial));
                for part in split(vowel(v)) {
                    push(Piece::Jamo(part, Role::Vowel));
                }
                if t > 0 {
                    for part in split(FINALS[t as usize]) {
                        push(Piece::Jamo(part, Role::Final));
                    }
                }
                i += 1;
            }
            Kind::Jamo(j) | Kind::Conjoining(j, _) => {
                let role = match k {
                    Kind::Conjoining(_, r) => r,
                    _ if is_compat_vowel(j) => Role::Vowel,
                    _ => Role::Loose,
                };
                for part in split(j) {
                    raws.push(Raw {
                        piece: Piece::Jamo(part, role),
                        source: source.clone(),
                        word,
                        syllable: false,
                    });
                }
                i += 1;
            }
            Kind::Letter(..) => {
                let mut end = i;
                while end < chars.len() && matches!(chars[end].2, Kind::Letter(..)) {
                    end += 1;
                }
                let typed: Option<Vec<char>> = chars[i..end]
                    .iter()
                    .map(|&(_, _, k)| match k {
                        Kind::Letter(l, upper) => dubeolsik(l, upper),
                        _ => None,
                    })
                    .collect();
                let as_hangul = typed.filter(|jamo| types_syllables(jamo));
                for (n, &(at, c, k)) in chars[i..end].iter().enumerate() {
                    let piece = match (&as_hangul, k) {
                        (Some(jamo), _) if is_compat_vowel(jamo[n]) => {
                            Piece::Jamo(jamo[n], Role::Vowel)
                        }
                        (Some(jamo), _) => Piece::Jamo(jamo[n], Role::Loose),
                        (None, Kind::Letter(l, _)) => Piece::Plain(l),
                        _ => Piece::Plain(c),
                    };
                    raws.push(Raw {
                        piece,
                        source: at..at + c.len_utf8(),
                        word,
                        syllable: false,
                    });
                }
                i = end;
            }
            Kind::Digit(d) => {
                raws.push(Raw {
                    piece: Piece::Plain(d),
                    source,
                    word,
                    syllable: false,
                });
                i += 1;
            }
            Kind::Space | Kind::Other(_) => i += 1,
        }
    }
    drop_orphan_vowels(&mut raws);
    resolve_loose(&mut raws);
    raws
}

/// Drops loose vowels that follow no loose consonant: `ㅡ` used as a dash (`병ㅡ신`) and
/// emoticons (`ㅠㅠ`) split a word rather than spell it.
fn drop_orphan_vowels(raws: &mut Vec<Raw>) {
    let mut after_loose_jamo = false;
    raws.retain(|raw| {
        let loose_jamo = !raw.syllable && matches!(raw.piece, Piece::Jamo(..));
        let orphan =
            loose_jamo && matches!(raw.piece, Piece::Jamo(_, Role::Vowel)) && !after_loose_jamo;
        if !orphan {
            after_loose_jamo = loose_jamo;
        }
        !orphan
    });
}

/// Gives each loose consonant a role from its neighbours in its run of loose jamo: before
/// a vowel it starts a syllable, after a vowel (or after a final it can pair with) it ends
/// one, alone it stays an initial.
fn resolve_loose(raws: &mut [Raw]) {
    for i in 0..raws.len() {
        let Piece::Jamo(c, Role::Loose) = raws[i].piece else {
            continue;
        };
        let loose_neighbour = |j: usize| raws.get(j).filter(|r| !r.syllable);
        let next_is_vowel =
            loose_neighbour(i + 1).is_some_and(|r| matches!(r.piece, Piece::Jamo(_, Role::Vowel)));
        let role = if next_is_vowel {
            Role::Initial
        } else {
            match i.checked_sub(1).and_then(loose_neighbour).map(|r| r.piece) {
                Some(Piece::Jamo(_, Role::Vowel)) if can_end(c) => Role::Final,
                Some(Piece::Jamo(p, Role::Final)) if compound_final(p, c) => Role::Final,
                _ => Role::Initial,
            }
        };
        raws[i].piece = Piece::Jamo(c, role);
    }
}

/// The skeleton char of a piece: initials and finals in their conjoining forms (so they
/// stay apart), vowels and other characters as they are.
fn encode(piece: Piece) -> char {
    match piece {
        Piece::Plain(c) => c,
        Piece::Jamo(c, Role::Vowel) => c,
        Piece::Jamo(c, Role::Final) => match consonant_slot(c).map(|n| COMPAT_FINAL[n]) {
            Some(n) if n > 0 && n != u8::MAX => char::from_u32(0x11A8 + n as u32 - 1).unwrap_or(c),
            _ => c,
        },
        Piece::Jamo(c, _) => match consonant_slot(c).map(|n| COMPAT_INITIAL[n]) {
            Some(n) if n != u8::MAX => char::from_u32(0x1100 + n as u32).unwrap_or(c),
            _ => c,
        },
    }
}

/// The place of a compatibility consonant (`ㄱ`..`ㅎ`) in the tables below.
fn consonant_slot(c: char) -> Option<usize> {
    (c as usize).checked_sub(0x3131).filter(|&n| n < 30)
}

/// For each compatibility consonant, its number in `INITIALS` (`u8::MAX`: none), so that
/// encoding needs no search.
const COMPAT_INITIAL: [u8; 30] = consonant_numbers(&INITIALS);

/// For each compatibility consonant, its number in `FINALS` (`u8::MAX`: none).
const COMPAT_FINAL: [u8; 30] = consonant_numbers(&FINALS);

const fn consonant_numbers<const N: usize>(table: &[char; N]) -> [u8; 30] {
    let mut out = [u8::MAX; 30];
    let mut n = 0;
    while n < N {
        let c = table[n] as u32;
        if c >= 0x3131 && c < 0x3131 + 30 {
            out[(c - 0x3131) as usize] = n as u8;
        }
        n += 1;
    }
    out
}

fn is_initial(c: char) -> bool {
    ('\u{1100}'..='\u{1112}').contains(&c)
}

fn is_vowel(c: char) -> bool {
    is_compat_vowel(c)
}

fn is_final(c: char) -> bool {
    ('\u{11A8}'..='\u{11C2}').contains(&c)
}

fn is_compat_vowel(c: char) -> bool {
    ('\u{314F}'..='\u{3163}').contains(&c)
}

/// The compatibility jamo of vowel number `n` (0 = ㅏ).
fn vowel(n: u32) -> char {
    char::from_u32(0x314F + n).unwrap_or('ㅏ')
}

const INITIALS: [char; 19] = [
    'ㄱ', 'ㄲ', 'ㄴ', 'ㄷ', 'ㄸ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅃ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅉ', 'ㅊ', 'ㅋ',
    'ㅌ', 'ㅍ', 'ㅎ',
];

/// Finals by number; 0 is "no final".
const FINALS: [char; 28] = [
    ' ', 'ㄱ', 'ㄲ', 'ㄳ', 'ㄴ', 'ㄵ', 'ㄶ', 'ㄷ', 'ㄹ', 'ㄺ', 'ㄻ', 'ㄼ', 'ㄽ', 'ㄾ', 'ㄿ', 'ㅀ',
    'ㅁ', 'ㅂ', 'ㅄ', 'ㅅ', 'ㅆ', 'ㅇ', 'ㅈ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ',
];

/// A compound jamo's parts, or the jamo itself.
fn split(c: char) -> impl Iterator<Item = char> {
    let parts: [char; 2] = match c {
        'ㄳ' => ['ㄱ', 'ㅅ'],
        'ㄵ' => ['ㄴ', 'ㅈ'],
        'ㄶ' => ['ㄴ', 'ㅎ'],
        'ㄺ' => ['ㄹ', 'ㄱ'],
        'ㄻ' => ['ㄹ', 'ㅁ'],
        'ㄼ' => ['ㄹ', 'ㅂ'],
        'ㄽ' => ['ㄹ', 'ㅅ'],
        'ㄾ' => ['ㄹ', 'ㅌ'],
        'ㄿ' => ['ㄹ', 'ㅍ'],
        'ㅀ' => ['ㄹ', 'ㅎ'],
        'ㅄ' => ['ㅂ', 'ㅅ'],
        'ㅘ' => ['ㅗ', 'ㅏ'],
        'ㅙ' => ['ㅗ', 'ㅐ'],
        'ㅚ' => ['ㅗ', 'ㅣ'],
        'ㅝ' => ['ㅜ', 'ㅓ'],
        'ㅞ' => ['ㅜ', 'ㅔ'],
        'ㅟ' => ['ㅜ', 'ㅣ'],
        'ㅢ' => ['ㅡ', 'ㅣ'],
        _ => [c, '\0'],
    };
    parts.into_iter().filter(|&p| p != '\0')
}

fn compound_vowel(a: char, b: char) -> bool {
    matches!(
        (a, b),
        ('ㅗ', 'ㅏ' | 'ㅐ' | 'ㅣ') | ('ㅜ', 'ㅓ' | 'ㅔ' | 'ㅣ') | ('ㅡ', 'ㅣ')
    )
}

fn compound_final(a: char, b: char) -> bool {
    matches!(
        (a, b),
        ('ㄱ', 'ㅅ')
            | ('ㄴ', 'ㅈ' | 'ㅎ')
            | ('ㄹ', 'ㄱ' | 'ㅁ' | 'ㅂ' | 'ㅅ' | 'ㅌ' | 'ㅍ' | 'ㅎ')
            | ('ㅂ', 'ㅅ')
    )
}

fn can_end(c: char) -> bool {
    !matches!(c, 'ㄸ' | 'ㅃ' | 'ㅉ')
}

/// The jamo a key types on the 두벌식 layout.
fn dubeolsik(key: char, shift: bool) -> Option<char> {
    let jamo = match (key, shift) {
        ('q', true) => 'ㅃ',
        ('w', true) => 'ㅉ',
        ('e', true) => 'ㄸ',
        ('r', true) => 'ㄲ',
        ('t', true) => 'ㅆ',
        ('o', true) => 'ㅒ',
        ('p', true) => 'ㅖ',
        ('q', _) => 'ㅂ',
        ('w', _) => 'ㅈ',
        ('e', _) => 'ㄷ',
        ('r', _) => 'ㄱ',
        ('t', _) => 'ㅅ',
        ('y', _) => 'ㅛ',
        ('u', _) => 'ㅕ',
        ('i', _) => 'ㅑ',
        ('o', _) => 'ㅐ',
        ('p', _) => 'ㅔ',
        ('a', _) => 'ㅁ',
        ('s', _) => 'ㄴ',
        ('d', _) => 'ㅇ',
        ('f', _) => 'ㄹ',
        ('g', _) => 'ㅎ',
        ('h', _) => 'ㅗ',
        ('j', _) => 'ㅓ',
        ('k', _) => 'ㅏ',
        ('l', _) => 'ㅣ',
        ('z', _) => 'ㅋ',
        ('x', _) => 'ㅌ',
        ('c', _) => 'ㅊ',
        ('v', _) => 'ㅍ',
        ('b', _) => 'ㅠ',
        ('n', _) => 'ㅜ',
        ('m', _) => 'ㅡ',
        _ => return None,
    };
    Some(jamo)
}

/// Whether jamo typed on the 두벌식 layout make whole syllables: at least one vowel,
/// every vowel after a consonant or completing a compound vowel, one initial before the
/// first vowel, at most a compound final after the last, and between two vowels a final
/// (or compound final) and an initial. A run with a consonant that belongs to no
/// syllable (`dorsal`, `ㅇㅐㄱㄴㅁㅣ`) is English, not Korean typed on an English keyboard.
fn types_syllables(jamo: &[char]) -> bool {
    let mut vowels = 0;
    // The consonants since the last vowel.
    let mut run: Vec<char> = Vec::with_capacity(4);
    for (n, &j) in jamo.iter().enumerate() {
        if is_compat_vowel(j) {
            let prev = n.checked_sub(1).map(|p| jamo[p]);
            let ok = match prev {
                Some(p) if !is_compat_vowel(p) => true,
                Some(p) => compound_vowel(p, j) && n >= 2 && !is_compat_vowel(jamo[n - 2]),
                None => false,
            };
            let consonants_fit = match run.as_slice() {
                [] => true,
                [_] => true,
                [_, _] => vowels > 0,
                [a, b, _] => vowels > 0 && compound_final(*a, *b),
                _ => false,
            };
            if !ok || !consonants_fit {
                return false;
            }
            vowels += 1;
            run.clear();
        } else if run.last() != Some(&j) {
            // A key held down (`tttlqkf`) types one consonant.
            run.push(j);
        }
    }
    let last_fits = match run.as_slice() {
        [] | [_] => true,
        [a, b] => compound_final(*a, *b),
        _ => false,
    };
    vowels > 0 && last_fits
}

// ---------------------------------------------------------------------------------------
// Romanised words

/// The hits of the romanised keys in the Latin words of `text`.
fn find_romanised(text: &str, hits: &mut Vec<Range<usize>>) {
    let Some(roman) = LISTS.roman.as_ref() else {
        return;
    };
    // Fullwidth letters start with the byte 0xEF in UTF-8.
    if !text.bytes().any(|b| b.is_ascii_alphabetic() || b == 0xEF) {
        return;
    }
    for word in roman_words(text) {
        let key = word.key.as_bytes();
        let allowed: Vec<(usize, usize)> = LISTS
            .roman_allow
            .iter()
            .flat_map(|allow| allow.find_overlapping_iter(word.key.as_str()))
            .map(|m| (m.start(), m.end()))
            .collect();
        for m in roman.find_overlapping_iter(word.key.as_str()) {
            let (start, end) = (m.start(), m.end());
            if !roman_is_whole(key, start, end) {
                continue;
            }
            if allowed.iter().any(|&(a, b)| a <= start && end <= b) {
                continue;
            }
            hits.push(word.sources[start].start..word.sources[end - 1].end);
        }
    }
}

/// A romanised key shorter than this matches a whole word only: short keys (`jot`,
/// `jonna`) are also English words or their parts (`jut`, `jonathan`), and the list's
/// own entries give keys this short only when written out as Latin lines.
const SHORT_KEY: usize = 5;

/// What may follow a romanised insult in its word without making it another word: the
/// vocative and subject particles (`byungsina`, `gaesaekkiya`).
const ROMAN_PARTICLES: [&[u8]; 4] = [b"a", b"ya", b"ah", b"i"];

/// Whether symbols `start..end` of a word's key make a hit. It starts the word (English
/// words hold keys inside them: `municipal`); a short key is the whole word; a longer
/// one ends the word, is followed by a particle, or ends where a syllable ends (`jotgat`
/// in `jotgatne`, but not `megal` in `megalith`, read 메가리스).
fn roman_is_whole(key: &[u8], start: usize, end: usize) -> bool {
    if start > 0 && key[start - 1] != b'#' {
        return false;
    }
    let rest_end = key[end..]
        .iter()
        .position(|&k| k == b'#')
        .map_or(key.len(), |p| end + p);
    let rest = &key[end..rest_end];
    if rest.is_empty() {
        return true;
    }
    if end - start < SHORT_KEY {
        return false;
    }
    if ROMAN_PARTICLES.contains(&rest) {
        return true;
    }
    let vowel = |at: usize| key.get(at).is_some_and(|&k| is_key_vowel(k));
    if vowel(end - 1) {
        // A vowel, or a consonant that no vowel follows, continues the last syllable.
        !vowel(end) && rest[0] != b'g' && vowel(end + 1)
    } else {
        !vowel(end)
    }
}

fn is_key_vowel(k: u8) -> bool {
    matches!(k, b'a' | b'e' | b'i' | b'o' | b'y')
}

/// A Latin word's romanised key, and for each symbol of the key the byte range of the
/// letters it came from.
struct RomanWord {
    key: String,
    sources: Vec<Range<usize>>,
}

impl RomanWord {
    /// Appends a symbol; a repeated one counts once (`ssibal`, `gaesaekki`), and a `y`
    /// after `j` is dropped (`dakchyeo` and `dakcheo`: 쳐 sounds as 처).
    fn push(&mut self, symbols: &str, source: Range<usize>) {
        for k in symbols.chars() {
            let last = self.key.chars().next_back();
            if last == Some(k) || (k == 'y' && last == Some('j')) {
                if let Some(s) = self.sources.last_mut() {
                    s.end = s.end.max(source.end);
                }
                continue;
            }
            self.key.push(k);
            self.sources.push(source.clone());
        }
    }
}

/// The romanised keys of the Latin words of `text`. A word is a run of ASCII letters
/// and digits (fullwidth folded), through `-`, `.`, `_`, `*` and `'` between them
/// (`si-bal`). Its key folds the spellings of one Korean sound into one symbol, the way
/// `roman_key` spells a listed word:
///
/// - consonants by articulation: `g k q c` → `k`, `d t` → `t`, `b p f v` → `p`, `j z
///   ch` → `j`, `r l` → `l`, `s sh` → `s`, final `ng` → `g`; `c` before a consonant
///   reads 씨 (`cbal`);
/// - vowels by sound: `eo eu o u oo w` → `o`, `ae e` → `e`, `ee i` → `i`, `y` before
///   a vowel is a glide, elsewhere `i`;
/// - digits between letters are look-alikes (`si8al`, `s1bal`), and an `8` that ends a
///   word reads 팔 (`si8`); any other digit splits the word (`ssibal123`).
fn roman_words(text: &str) -> Vec<RomanWord> {
    let mut words = Vec::new();
    let mut run: Vec<(char, Range<usize>)> = Vec::new();
    for (at, c) in text.char_indices() {
        let folded = fold_width(c).to_ascii_lowercase();
        if folded.is_ascii_alphanumeric() {
            run.push((folded, at..at + c.len_utf8()));
        } else if !is_joiner(folded) || run.is_empty() {
            words.extend(roman_word(&run));
            run.clear();
        }
    }
    if !run.is_empty() {
        words.extend(roman_word(&run));
    }
    words
}

/// A character that a romanised word may hold between its letters (`si-bal`).
fn is_joiner(c: char) -> bool {
    matches!(c, '-' | '.' | '_' | '*' | '\'')
}

/// The key of one run of letters and digits; `None` when it holds no letter.
fn roman_word(run: &[(char, Range<usize>)]) -> Option<RomanWord> {
    if !run.iter().any(|(c, _)| c.is_ascii_alphabetic()) {
        return None;
    }
    let mut word = RomanWord {
        key: String::with_capacity(run.len()),
        sources: Vec::with_capacity(run.len()),
    };
    let at = |n: usize| run.get(n).map(|(c, _)| *c);
    let letter = |n: usize| at(n).is_some_and(|c| c.is_ascii_alphabetic());
    let vowel = |n: usize| at(n).is_some_and(|c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'));
    let mut i = 0;
    while let Some(c) = at(i) {
        let next = at(i + 1);
        let (symbols, len): (&str, usize) = match c {
            'a' if next == Some('e') => ("e", 2),
            'e' if matches!(next, Some('o' | 'u')) => ("o", 2),
            // `ee` (and a held `eee`) is the vowel ㅣ.
            'e' if next == Some('e') => (
                "i",
                2 + run[i + 2..].iter().take_while(|(c, _)| *c == 'e').count(),
            ),
            'a' => ("a", 1),
            'e' => ("e", 1),
            'i' => ("i", 1),
            'o' | 'u' | 'w' => ("o", 1),
            'y' if vowel(i + 1) => ("y", 1),
            'y' => ("i", 1),
            's' if next == Some('h') => ("s", 2),
            'c' if next == Some('h') => ("j", 2),
            'c' if matches!(next, Some('e' | 'i' | 'y')) => ("s", 1),
            'c' if vowel(i + 1) => ("k", 1),
            'c' => ("si", 1),
            'k' | 'p' | 't' if next == Some('h') => (roman_consonant(c), 2),
            'n' if next == Some('g') && !vowel(i + 2) => ("g", 2),
            '8' if letter(i + 1) => ("p", 1),
            '8' if i > 0 && letter(i - 1) => ("pal", 1),
            '1' if i > 0 && letter(i - 1) && letter(i + 1) => ("i", 1),
            '0' if i > 0 && letter(i - 1) && letter(i + 1) => ("o", 1),
            c if c.is_ascii_digit() => ("#", 1),
            c => (roman_consonant(c), 1),
        };
        let end = run.get(i + len - 1).map_or(run[i].1.end, |(_, r)| r.end);
        word.push(symbols, run[i].1.start..end);
        i += len;
    }
    Some(word)
}

fn roman_consonant(c: char) -> &'static str {
    match c {
        'g' | 'k' | 'q' => "k",
        'd' | 't' => "t",
        'b' | 'p' | 'f' | 'v' => "p",
        'j' | 'z' => "j",
        'r' | 'l' => "l",
        'x' => "ks",
        's' => "s",
        'm' => "m",
        'n' => "n",
        'h' => "h",
        _ => "#",
    }
}

/// The romanised key of a list entry: a Hangul word spelled sound by sound in the
/// symbols of `roman_words` (initial `ㅇ` silent, final `ㅇ` → `g`, a final `ㅅ ㅈ ㅊ
/// ㅌ ㅎ` → `t`, `ㅓ ㅗ ㅜ ㅡ` → `o`: `병신` → `pyogsin`, `좆` → `jot`), or a Latin line
/// folded as typed text is. Entries with jamo, digits or mixed scripts have none.
fn roman_key(entry: &str) -> Option<String> {
    if is_latin_line(entry) {
        let mut words = roman_words(entry);
        return (words.len() == 1)
            .then(|| words.pop().map(|w| w.key))
            .flatten();
    }
    if !entry.chars().all(|c| syllable_initial(c).is_some()) {
        return None;
    }
    let mut word = RomanWord {
        key: String::new(),
        sources: Vec::new(),
    };
    for c in Skeleton::of(entry).chars {
        let symbols = if is_initial(c) {
            INITIAL_KEYS[c as usize - 0x1100]
        } else if is_final(c) {
            FINAL_KEYS[c as usize - 0x11A8 + 1]
        } else {
            vowel_key(c)
        };
        word.push(symbols, 0..0);
    }
    Some(word.key)
}

/// The key symbols of the initials, in the order of `INITIALS`.
const INITIAL_KEYS: [&str; 19] = [
    "k", "k", "n", "t", "t", "l", "m", "p", "p", "s", "s", "", "j", "j", "j", "k", "t", "p", "h",
];

/// The key symbols of the finals, in the order of `FINALS` (compound finals never occur:
/// the skeleton splits them).
const FINAL_KEYS: [&str; 28] = [
    "", "k", "k", "ks", "n", "nj", "n", "t", "l", "lk", "lm", "lp", "l", "l", "lp", "l", "m", "p",
    "ps", "t", "t", "g", "t", "t", "k", "t", "p", "t",
];

fn vowel_key(c: char) -> &'static str {
    match c {
        'ㅏ' => "a",
        'ㅐ' | 'ㅔ' => "e",
        'ㅑ' => "ya",
        'ㅒ' | 'ㅖ' => "ye",
        'ㅓ' | 'ㅗ' | 'ㅜ' | 'ㅡ' => "o",
        'ㅕ' | 'ㅛ' | 'ㅠ' => "yo",
        'ㅣ' => "i",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The original text each skeleton element points at.
    fn origins(text: &str) -> Vec<&str> {
        let s = Skeleton::of(text);
        s.sources.iter().map(|r| &text[r.clone()]).collect()
    }

    #[test]
    fn syllables_split_into_jamo_that_point_at_the_syllable() {
        assert_eq!(origins("시발"), ["시", "시", "발", "발", "발"]);
        assert_eq!(Skeleton::of("시발").chars.len(), 5);
    }

    #[test]
    fn loose_jamo_english_keys_and_syllables_share_one_skeleton() {
        let s = Skeleton::of("시발").text;
        assert_eq!(Skeleton::of("ㅅㅣㅂㅏㄹ").text, s);
        assert_eq!(Skeleton::of("tlqkf").text, s);
        assert_eq!(Skeleton::of("시 . 발").text, s);
        assert_eq!(Skeleton::of("시이이발").text, s);
        assert_eq!(Skeleton::of("ｔｌｑｋｆ").text, s);
        assert_ne!(Skeleton::of("ㅅㅂ").text, Skeleton::of("습").text);
    }

    #[test]
    fn ranges_point_at_the_original_characters_in_mixed_scripts() {
        let text = "ab 시.발 tlqkf!";
        assert_eq!(find(text), vec![3..10, 11..16]);
        assert_eq!(&text[3..10], "시.발");
        assert_eq!(origins("a시b"), ["a", "시", "시", "b"]);
        let text = "ㅅ1발야";
        assert_eq!(origins(text), ["ㅅ", "1", "발", "발", "발", "야", "야"]);
        assert_eq!(find(text), vec![0..7]);
    }

    #[test]
    fn compound_jamo_and_english_keys_point_at_their_own_characters() {
        assert_eq!(origins("ㅄ"), ["ㅄ", "ㅄ"]);
        assert_eq!(origins("qkfr"), ["q", "k", "f", "r"]);
        assert_eq!(Skeleton::of("qkfr").text, Skeleton::of("밝").text);
        let text = "ｔｌｑｋｆ";
        assert_eq!(find(text), vec![0..text.len()]);
        let text = "오늘 qudtls 같은";
        assert_eq!(&text[find(text)[0].clone()], "qudtls");
    }

    #[test]
    fn a_stretched_vowel_points_at_all_it_covers() {
        let text = "씨바아알";
        assert_eq!(find(text), vec![0..text.len()]);
        assert_eq!(mask(text), "****");
    }

    #[test]
    fn fullwidth_text_is_masked_character_for_character() {
        assert_eq!(mask("ｔｌｑｋｆ 뭐야"), "***** 뭐야");
    }

    #[test]
    fn entries_stand_for_their_abbreviations_and_digits() {
        let spelled = spellings("개새끼");
        for s in ["개새끼", "ㄱ새끼", "개ㅅ끼", "개새ㄲ", "개ㅅㄲ", "ㄱㅅ끼"] {
            assert!(spelled.iter().any(|x| x == s), "{s}");
        }
        // Initials only are listed one by one.
        assert!(!spelled.iter().any(|x| x == "ㄱㅅㄲ"));
        let spelled = spellings("시발");
        for s in ["시발", "ㅅ발", "시8", "ㅅ8"] {
            assert!(spelled.iter().any(|x| x == s), "{s}");
        }
        // The last of two syllables is not abbreviated, ㅇ, ㅋ and ㅎ never are, and an
        // initial that would fold into the next syllable's is left out.
        assert!(!spellings("시발").iter().any(|x| x == "시ㅂ"));
        assert_eq!(spellings("흑형"), ["흑형"]);
        assert!(!spellings("섹스").iter().any(|x| x == "ㅅ스"));
        assert_eq!(spellings("c발"), ["c발"]);
    }

    #[test]
    fn romanisations_of_one_word_share_a_key() {
        let key = roman_key("시발");
        assert_eq!(key.as_deref(), Some("sipal"));
        for typed in [
            "sibal", "ssibal", "Shibal", "sibbal", "si-bal", "si8al", "sipal",
        ] {
            let words = roman_words(typed);
            assert_eq!(words.len(), 1, "{typed}");
            assert_eq!(Some(words[0].key.as_str()), key.as_deref(), "{typed}");
        }
        assert_eq!(roman_key("병신").as_deref(), Some("pyogsin"));
        for typed in ["byungsin", "byeongsin", "byungshin", "byongsin"] {
            assert_eq!(
                Some(roman_words(typed)[0].key.as_str()),
                roman_key("병신").as_deref()
            );
        }
        assert_eq!(roman_key("ㅅㅂ"), None);
        let text = "ok ssibal123";
        let words = roman_words(text);
        assert_eq!(words.len(), 2);
        assert_eq!(words[1].key, "sipal#");
        assert_eq!(&text[words[1].sources[0].clone()], "ss");
    }

    #[test]
    fn english_words_are_not_read_as_keyboard_hangul() {
        let jamo =
            |s: &str| -> Vec<char> { s.chars().filter_map(|c| dubeolsik(c, false)).collect() };
        assert!(types_syllables(&jamo("tlqkf")));
        assert!(types_syllables(&jamo("qudtls")));
        assert!(types_syllables(&jamo("tttlqkf")));
        assert!(!types_syllables(&jamo("dorsal")));
        assert!(!types_syllables(&jamo("install")));
    }

    #[test]
    fn folded_contacts_point_at_the_original_characters() {
        let text = "번호 ０１０ㅡ１２３４ㅡ５６７８ 야";
        let found = find_contacts(text);
        assert_eq!(found.len(), 1);
        assert_eq!(&text[found[0].clone()], "０１０ㅡ１２３４ㅡ５６７８");
        assert_eq!(mask_contacts(text), "번호 ************* 야");
    }

    #[test]
    fn every_listed_zero_starts_ten_decimal_digits() {
        for zero in DIGIT_ZEROS {
            for d in 0..10 {
                let c = char::from_u32(zero + d).unwrap();
                assert!(c.is_numeric(), "{:X}", zero + d);
                assert_eq!(fold_width(c), digit(d), "{:X}", zero + d);
            }
        }
        assert_eq!(fold_width('\u{0669}'), '9');
        assert_eq!(fold_width('\u{1D7FF}'), '9');
        assert_eq!(fold_width('\u{066A}'), '\u{066A}');
        assert_eq!(fold_width('가'), '가');
    }

    #[test]
    fn signs_of_numbers_fold_to_their_digits() {
        let folded = |t: &str| ContactText::of(t).0.text(t).to_owned();
        assert_eq!(folded("⑫⒇⒈²₃❿〇二"), "12201231002");
        assert_eq!(folded("〇一〇 010一1234"), "010 010-1234");
        assert_eq!(folded("카\u{200c}톡 1\u{fe0f}\u{20e3}"), "카톡 1");
        assert_eq!(
            folded("ㅋㅏ톡 ㅋr톡 ㅋㅏㅌㅗㄱ ㄲH톡"),
            "카톡 카톡 카톡 깨톡"
        );
        // ㅡ after a consonant is a dash unless Hangul follows; r and H only between jamo
        // and Hangul.
        assert_eq!(folded("ㅇㅡ1 ㅎr ok"), "ㅇ-1 ㅎr ok");
    }

    #[test]
    fn folded_pieces_point_at_all_the_characters_they_stand_for() {
        let text = "ㅋㅏ톡 abc1\u{200c}";
        let (folded, _) = ContactText::of(text);
        assert_eq!(folded.text(text), "카톡 abc1");
        assert_eq!(&text[folded.original(0..3)], "ㅋㅏ");
        assert_eq!(&text[folded.original(7..11)], "abc1");
        let text = "0⑽-1\u{fe0f}\u{20e3}";
        let (folded, _) = ContactText::of(text);
        assert_eq!(folded.text(text), "010-1");
        assert_eq!(&text[folded.original(1..2)], "⑽");
        assert_eq!(&text[folded.original(4..5)], "1\u{fe0f}\u{20e3}");
    }

    #[test]
    fn the_middle_finger_is_a_lone_run_of_its_vowel() {
        assert_eq!(find("ㅗ"), vec![0..3]);
        assert_eq!(mask("ㅗㅗ ㅗ"), "** *");
        assert_eq!(mask("ㅗㅗㅋㅋ"), "**ㅋㅋ");
        for text in ["ㄱㅗ", "ㅗㅜㅑ", "야ㅗ", "ㅗ1", "고오"] {
            assert!(is_clean(text), "{text}");
        }
    }

    #[test]
    fn the_lists_build() {
        assert!(LISTS.words.as_ref().unwrap().patterns_len() > 100);
        assert!(LISTS.allow.as_ref().unwrap().patterns_len() > 20);
        assert!(LISTS.roman.as_ref().unwrap().patterns_len() > 50);
        assert!(LISTS.roman_allow.as_ref().unwrap().patterns_len() > 20);
        assert!(CONTACTS.is_some());
    }

    #[test]
    fn a_long_message_goes_through() {
        let unit = "오늘 저녁 8시 30분에 만나요 시발점 tlqkf 010-1234-5678 abc.com ";
        let text: String = unit.chars().cycle().take(1000).collect();
        assert_eq!(mask(&text).chars().count(), 1000);
        assert_eq!(mask_contacts(&text).chars().count(), 1000);
        assert!(!is_clean(&text));
    }

    /// The compatibility jamo of a syllable, compounds split, as typed one by one.
    fn typed_jamo(c: char) -> Vec<char> {
        let Some(n) = (c as u32).checked_sub(0xAC00).filter(|&n| n < 11172) else {
            return vec![c];
        };
        let (l, v, t) = (n / (21 * 28), (n / 28) % 21, n % 28);
        let mut out = vec![INITIALS[l as usize]];
        out.extend(split(vowel(v)));
        if t > 0 {
            out.extend(split(FINALS[t as usize]));
        }
        out
    }

    /// Ways people disguise `word`, each in a few surroundings.
    fn variants(word: &str) -> Vec<String> {
        let chars: Vec<char> = word.chars().collect();
        let join = |sep: &str| {
            chars
                .iter()
                .map(char::to_string)
                .collect::<Vec<_>>()
                .join(sep)
        };
        let jamo: String = chars.iter().flat_map(|&c| typed_jamo(c)).collect();
        let keys: Option<String> = jamo
            .chars()
            .map(|j| {
                ('a'..='z').find_map(|k| {
                    if dubeolsik(k, false) == Some(j) {
                        Some(k)
                    } else if dubeolsik(k, true) == Some(j) {
                        Some(k.to_ascii_uppercase())
                    } else {
                        None
                    }
                })
            })
            .collect();
        // A syllable without a final stretched with ㅇ and its vowel (시이발).
        let stretched: String = chars
            .iter()
            .flat_map(|&c| {
                let n = (c as u32).wrapping_sub(0xAC00);
                let stretch = (n < 11172 && n.is_multiple_of(28))
                    .then(|| char::from_u32(0xAC00 + (11 * 21 + (n / 28) % 21) * 28))
                    .flatten();
                std::iter::once(c).chain(stretch)
            })
            .collect();
        let fullwidth: String = chars
            .iter()
            .map(|&c| match c {
                '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
                _ => c,
            })
            .collect();
        let doubled: String = chars.iter().flat_map(|&c| [c, c]).collect();
        let mut forms = vec![
            word.to_owned(),
            join(" "),
            join("."),
            join("1"),
            join("ㅡ"),
            jamo,
            stretched,
            fullwidth,
            doubled,
        ];
        forms.extend(keys);
        forms
            .iter()
            .flat_map(|f| {
                [
                    f.clone(),
                    format!("야 {f} 진짜"),
                    format!("{f}아"),
                    format!("ㅋㅋ{f}ㅋㅋ"),
                    format!("오늘 {f}"),
                ]
            })
            .collect()
    }

    /// The first pass ends the search only where the full search would find nothing: over
    /// every text of the filter suite, and every spelling of every entry of both lists in
    /// the disguises the skeleton undoes.
    #[test]
    fn the_first_pass_passes_nothing_the_full_search_flags() {
        let table: serde_json::Value =
            serde_json::from_str(include_str!("../../../testdata/moderation-cases.json"))
                .expect("the moderation table");
        let mut texts: Vec<String> = ["words", "contacts", "nicknames"]
            .iter()
            .flat_map(|part| table[part].as_array().cloned().unwrap_or_default())
            .filter_map(|case| case["input"].as_str().map(str::to_owned))
            .collect();
        assert!(texts.len() > 400, "the table is read");
        for entry in entries(WORDS).chain(entries(ALLOW)) {
            for spelling in spellings(entry) {
                texts.extend(variants(&spelling));
            }
        }
        let (mut flagged, mut ended) = (0, 0);
        for text in &texts {
            let mut hits = Vec::new();
            search_skeleton(text, &mut hits);
            let first = may_hold_listed_word(text);
            assert!(
                hits.is_empty() || first,
                "the first pass passes {text:?}, which the search flags"
            );
            flagged += usize::from(!hits.is_empty());
            ended += usize::from(!first);
        }
        // The disguises are caught, and the pass does end the search for some texts.
        assert!(
            flagged > texts.len() / 2,
            "{flagged} of {} flagged",
            texts.len()
        );
        assert!(ended > 100, "{ended} ended by the first pass");
    }

    /// Everyday chat, which holds no listed word, ends in the first pass.
    #[test]
    fn everyday_chat_ends_in_the_first_pass() {
        for text in [
            "안녕하세요 반가워요 오늘 하루 어떻게 보내셨어요?",
            "오늘 저녁에는 바다를 보면서 이야기하고 싶어요",
            "ㅋㅋㅋㅋ 진짜 웃기다 그거 어디서 봤어요?",
            "hello nice to meet you, where are you from?",
        ] {
            assert!(!may_hold_listed_word(text), "{text:?}");
        }
    }
}
