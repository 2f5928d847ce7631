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
//! normaliser and into two Aho-Corasick automata, built once. A hit must end where a
//! syllable ends (`시바` does not match `시방`); a hit that crosses a space must start at a
//! word and, if it stops inside the last word, cover at least two of its characters (so
//! `시 발` is caught and `세 시 발표` is not); a hit inside a hit of the allow list
//! (`시발점`) is dropped.
//!
//! Digits and Latin look-alikes count only in the listed spellings (`18놈`, `ㅅ8`, `c발`,
//! `시bal`): a bare `18` is a number.
//!
//! # Known limits
//!
//! The list holds whole spellings, not sounds: a new misspelling needs a new line.
//! English and fully romanised profanity (`sibal`) is not caught. Words split by a space
//! inside a longer word are missed (`야시 발`), and single syllables spaced apart can still
//! form a listed word by chance (`김 씨 발`, `우리 개 새끼 낳았어`). A meaning that depends
//! on context (`병신년` the year 丙申年 against the insult) is decided by the list: `병신년`
//! is flagged.

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
    let Some(words) = LISTS.words.as_ref() else {
        return hits;
    };
    // Every entry holds a Hangul or Latin letter: most number-only and emoji-only
    // messages need no normalising.
    if !text.chars().any(|c| c.is_alphabetic()) {
        return hits;
    }
    let skeleton = Skeleton::of(text);
    if skeleton.chars.is_empty() {
        return hits;
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
        hits.push(skeleton.sources[start].start..skeleton.sources[end - 1].end);
    }
    merge(hits)
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
/// with digit words, `공일공…`), messenger IDs after the messenger's name (`카톡 아이디
/// abc123`, `텔레 @name`), e-mail addresses, and links (`http(s)://…`, `www.…`, bare
/// domains such as `abc.com`, `t.me/x`, `open.kakao.com/o/…`). Sorted and disjoint.
pub fn find_contacts(text: &str) -> Vec<Range<usize>> {
    let mut hits = Vec::new();
    let Some(c) = CONTACTS.as_ref() else {
        return hits;
    };
    for m in c.phone.find_iter(text) {
        if !digit_before(text, m.start()) && !digit_after(text, m.end()) {
            hits.push(m.range());
        }
    }
    for m in c.url.find_iter(text) {
        let before = text[..m.start()].chars().next_back();
        let after = text[m.end()..].chars().next();
        let glued = |ch: Option<char>| ch.is_some_and(|ch| ch.is_ascii_alphanumeric());
        if !glued(before) && before != Some('@') && !glued(after) {
            hits.push(m.range());
        }
    }
    for m in c.email.find_iter(text) {
        hits.push(m.range());
    }
    for caps in c.messenger.captures_iter(text) {
        let (Some(name), Some(handle)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        // 온라인, 가이드라인: 라인 inside a word is not the messenger.
        let inside_word = text[..name.start()]
            .chars()
            .next_back()
            .is_some_and(is_hangul);
        let has_letter = handle.as_str().chars().any(|c| c.is_ascii_alphabetic());
        let glued = text[handle.end()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if !(name.as_str() == "라인" && inside_word) && has_letter && !glued {
            hits.push(handle.range());
        }
    }
    merge(hits)
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
}

static LISTS: LazyLock<Lists> = LazyLock::new(|| Lists {
    words: automaton(WORDS),
    allow: automaton(ALLOW),
});

/// The automaton of a list's skeletons. Building fails only past size limits a list of
/// this length never nears; should it fail, the list matches nothing rather than the
/// server stopping.
fn automaton(list: &str) -> Option<AhoCorasick> {
    let patterns: Vec<String> = list
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(|line| Skeleton::of(line).text)
        .filter(|s| !s.is_empty())
        .collect();
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .build(&patterns)
        .ok()
}

struct Contacts {
    phone: Regex,
    url: Regex,
    email: Regex,
    messenger: Regex,
}

/// The contact patterns. They are constants known to compile; were one not to, contacts
/// go unmasked rather than the server stopping.
static CONTACTS: LazyLock<Option<Contacts>> = LazyLock::new(|| {
    const SEP: &str = r"[ .\-]{0,3}";
    let d = "(?:[0-9]|공|영|일|이|삼|사|오|육|륙|칠|팔|구)";
    let phone = format!(
        r"(?:(?:\+82|82){SEP}1|(?:0|공|영){SEP}(?:1|일)){SEP}(?:[016789]|공|영|일|육|륙|칠|팔|구)(?:{SEP}{d}){{7,8}}"
    );
    let tld = "com|net|org|kr|io|me|ly|gg|xyz|app|link|site|info|biz|tv|cc|dev|shop|club|top";
    let url = format!(
        r"(?i)(?:https?://[^\s]+|www\.[^\s]+|[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)*\.(?:{tld})(?:/[A-Za-z0-9_\-./?=&%#~+]*)?)"
    );
    let email = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+";
    let names = "카카오톡|카카오|카톡|텔레그램|텔레|라인|인스타그램|인스타|디스코드|디코|위챗|스냅챗|오픈채팅|오픈톡|kakaotalk|kakao|katalk|telegram|instagram|insta|discord|wechat|아이디|아디";
    let messenger = format!(
        r"(?i)({names})(?:\s*(?:아이디|아디|id|주소|계정))?(?:은|는|이|가|로|으로|도)?\s*[:：=\-]?\s*(@?[A-Za-z0-9][A-Za-z0-9_.\-]{{1,31}})"
    );
    Some(Contacts {
        phone: Regex::new(&phone).ok()?,
        url: Regex::new(&url).ok()?,
        email: Regex::new(email).ok()?,
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
        let mut skip_vowel = false;
        for (i, raw) in raws.iter().enumerate() {
            let c = encode(raw.piece);
            let last = out.chars.last().copied();
            // A repeated element (ㅅㅅㅂ, ssibal) counts once; digits are kept as typed. A
            // vowel stretched with ㅇ (바아알) counts once: skip the ㅇ and the vowel after it.
            let repeated = last == Some(c) && !c.is_ascii_digit();
            let stretch = c == 'ᄋ'
                && out.words.last() == Some(&raw.word)
                && last.is_some_and(is_vowel)
                && raws.get(i + 1).map(|r| encode(r.piece)) == last
                && !raws
                    .get(i + 2)
                    .is_some_and(|r| last.is_some_and(|v| compound_vowel(v, encode(r.piece))));
            if repeated || stretch || std::mem::take(&mut skip_vowel) {
                skip_vowel = stretch;
                if let Some(s) = out.sources.last_mut() {
                    s.end = s.end.max(raw.source.end);
                }
                continue;
            }
            out.offsets.push(out.text.len());
            out.text.push(c);
            out.chars.push(c);
            out.sources.push(raw.source.clone());
            out.words.push(raw.word);
        }
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

/// Fullwidth ASCII to ASCII, halfwidth Hangul jamo to compatibility jamo.
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
        _ => u,
    };
    char::from_u32(folded).unwrap_or(c)
}

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
    let mut kept: Vec<Raw> = Vec::with_capacity(raws.len());
    for raw in raws.drain(..) {
        let orphan = !raw.syllable
            && matches!(raw.piece, Piece::Jamo(_, Role::Vowel))
            && !kept
                .last()
                .is_some_and(|prev| !prev.syllable && matches!(prev.piece, Piece::Jamo(..)));
        if !orphan {
            kept.push(raw);
        }
    }
    *raws = kept;
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
        Piece::Jamo(c, Role::Final) => match FINALS.iter().position(|&f| f == c) {
            Some(n) if n > 0 => char::from_u32(0x11A8 + n as u32 - 1).unwrap_or(c),
            _ => c,
        },
        Piece::Jamo(c, _) => match INITIALS.iter().position(|&f| f == c) {
            Some(n) => char::from_u32(0x1100 + n as u32).unwrap_or(c),
            None => c,
        },
    }
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

/// Whether jamo typed on the 두벌식 layout make whole syllables: at least one vowel, every
/// vowel after a consonant or completing a compound vowel, no more than three consonants
/// in a row (a compound final and the next initial).
fn types_syllables(jamo: &[char]) -> bool {
    let mut vowels = 0;
    let mut consonants_in_a_row = 0;
    for (n, &j) in jamo.iter().enumerate() {
        if is_compat_vowel(j) {
            let prev = n.checked_sub(1).map(|p| jamo[p]);
            let ok = match prev {
                Some(p) if !is_compat_vowel(p) => true,
                Some(p) => compound_vowel(p, j) && n >= 2 && !is_compat_vowel(jamo[n - 2]),
                None => false,
            };
            if !ok {
                return false;
            }
            vowels += 1;
            consonants_in_a_row = 0;
        } else {
            consonants_in_a_row += 1;
            if consonants_in_a_row > 3 {
                return false;
            }
        }
    }
    vowels > 0
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
    fn the_lists_build() {
        assert!(LISTS.words.as_ref().unwrap().patterns_len() > 100);
        assert!(LISTS.allow.as_ref().unwrap().patterns_len() > 20);
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
}
