//! The round's four words: every `CUSTOM_EVERY`-th round shows an approved custom word set
//! when one is active (`custom_set_for_round`); every other round shows the built-in topic
//! `CATALOGUE[round mod CATALOGUE.len()]`.

/// One round's four words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Topic {
    /// A short Korean label of the theme, for operators (not shown to users).
    pub theme: &'static str,
    pub words: [&'static str; 4],
    /// Personal-name topics are paid (spec: paid flag 1 for personal-name topics).
    pub paid: bool,
}

// One topic a line, so the catalogue reads as a table.
#[rustfmt::skip]
pub const CATALOGUE: &[Topic] = &[
    Topic { theme: "계절", words: ["봄", "여름", "가을", "겨울"], paid: false },
    Topic { theme: "야식", words: ["치킨", "피자", "족발", "떡볶이"], paid: false },
    Topic { theme: "여행 도시", words: ["부산", "제주", "강릉", "전주"], paid: false },
    Topic { theme: "밤 기분", words: ["몽글몽글", "싱숭생숭", "노곤노곤", "두근두근"], paid: false },
    Topic { theme: "취미", words: ["독서", "요리", "사진", "등산"], paid: false },
    Topic { theme: "반려동물", words: ["강아지", "고양이", "햄스터", "앵무새"], paid: false },
    Topic { theme: "이름 1", words: ["민준", "서연", "지우", "하준"], paid: true },
    Topic { theme: "디저트", words: ["마카롱", "티라미수", "크로플", "푸딩"], paid: false },
    Topic { theme: "날씨", words: ["햇살", "소나기", "함박눈", "산들바람"], paid: false },
    Topic { theme: "데이트 장소", words: ["한강", "영화관", "놀이공원", "전시회"], paid: false },
    Topic { theme: "음악 장르", words: ["발라드", "힙합", "재즈", "인디"], paid: false },
    Topic { theme: "감정", words: ["기쁨", "슬픔", "설렘", "뿌듯함"], paid: false },
    Topic { theme: "한식", words: ["김치찌개", "비빔밥", "불고기", "삼겹살"], paid: false },
    Topic { theme: "구기 종목", words: ["축구", "야구", "농구", "배구"], paid: false },
    Topic { theme: "색깔", words: ["하늘색", "보라색", "민트색", "연분홍"], paid: false },
    Topic { theme: "2000년대 추억", words: ["미니홈피", "폴더폰", "엠피쓰리", "스티커사진"], paid: false },
    Topic { theme: "카페 음료", words: ["아메리카노", "카페라테", "자몽에이드", "밀크티"], paid: false },
    Topic { theme: "이름 2", words: ["서준", "하윤", "도윤", "지아"], paid: true },
    Topic { theme: "바다 생물", words: ["고래", "불가사리", "해파리", "거북이"], paid: false },
    Topic { theme: "주말 계획", words: ["늦잠", "브런치", "드라이브", "집콕"], paid: false },
    Topic { theme: "편의점", words: ["삼각김밥", "컵라면", "바나나우유", "도시락"], paid: false },
    Topic { theme: "놀러 갈 곳", words: ["캠핑장", "찜질방", "노래방", "방탈출"], paid: false },
    Topic { theme: "영화 장르", words: ["로맨스", "공포", "코미디", "액션"], paid: false },
    Topic { theme: "과일", words: ["딸기", "수박", "복숭아", "망고"], paid: false },
    Topic { theme: "우주", words: ["달", "별", "은하수", "블랙홀"], paid: false },
    Topic { theme: "학교 과목", words: ["국어", "체육", "미술", "음악"], paid: false },
    Topic { theme: "초능력", words: ["순간이동", "투명인간", "시간정지", "독심술"], paid: false },
    Topic { theme: "길거리 간식", words: ["붕어빵", "호떡", "어묵", "군고구마"], paid: false },
    Topic { theme: "이름 3", words: ["시우", "수아", "주원", "채원"], paid: true },
    Topic { theme: "꽃", words: ["장미", "벚꽃", "해바라기", "튤립"], paid: false },
    Topic { theme: "여행 도시 2", words: ["경주", "여수", "속초", "통영"], paid: false },
    Topic { theme: "보드게임", words: ["윷놀이", "체스", "바둑", "마피아게임"], paid: false },
    Topic { theme: "면 요리", words: ["냉면", "짜장면", "짬뽕", "칼국수"], paid: false },
    Topic { theme: "새벽 감성", words: ["라디오", "일기쓰기", "밤산책", "야경"], paid: false },
    Topic { theme: "동물", words: ["판다", "여우", "수달", "펭귄"], paid: false },
    Topic { theme: "꿈의 직업", words: ["작가", "파티시에", "선생님", "개발자"], paid: false },
    Topic { theme: "음료", words: ["맥주", "콜라", "사이다", "식혜"], paid: false },
    Topic { theme: "명절과 기념일", words: ["설날", "추석", "생일", "화이트데이"], paid: false },
    Topic { theme: "웹툰 장르", words: ["판타지", "무협", "학원물", "일상툰"], paid: false },
    Topic { theme: "이름 4", words: ["건우", "지안", "우진", "소율"], paid: true },
    Topic { theme: "빵", words: ["소금빵", "크루아상", "베이글", "단팥빵"], paid: false },
    Topic { theme: "하늘 풍경", words: ["노을", "무지개", "뭉게구름", "별똥별"], paid: false },
    Topic { theme: "꿈의 집", words: ["바닷가집", "한옥", "복층", "옥탑방"], paid: false },
    Topic { theme: "악기", words: ["피아노", "기타", "드럼", "바이올린"], paid: false },
    Topic { theme: "아이스크림 맛", words: ["바닐라", "민트초코", "쿠키앤크림", "피스타치오"], paid: false },
    Topic { theme: "드라마 클리셰", words: ["계약연애", "기억상실", "출생의비밀", "삼각관계"], paid: false },
    Topic { theme: "새", words: ["참새", "까치", "부엉이", "홍학"], paid: false },
    Topic { theme: "레저 스포츠", words: ["서핑", "스키", "볼링", "클라이밍"], paid: false },
    Topic { theme: "반찬", words: ["계란말이", "멸치볶음", "감자조림", "잡채"], paid: false },
    Topic { theme: "추억의 놀이", words: ["술래잡기", "고무줄", "딱지치기", "공기놀이"], paid: false },
    Topic { theme: "이름 5", words: ["서아", "이준", "하린", "유준"], paid: true },
    Topic { theme: "행성", words: ["화성", "목성", "토성", "금성"], paid: false },
    Topic { theme: "첫 데이트 메뉴", words: ["파스타", "스테이크", "초밥", "마라탕"], paid: false },
    Topic { theme: "쉬는 방법", words: ["낮잠", "반신욕", "멍때리기", "마사지"], paid: false },
    Topic { theme: "잔잔한 소리", words: ["빗소리", "파도소리", "장작소리", "풀벌레소리"], paid: false },
    Topic { theme: "여름 풍경", words: ["수영장", "팥빙수", "선풍기", "불꽃놀이"], paid: false },
    Topic { theme: "아침 메뉴", words: ["토스트", "시리얼", "샌드위치", "누룽지"], paid: false },
    Topic { theme: "옷", words: ["후드티", "청바지", "원피스", "니트"], paid: false },
    Topic { theme: "드라마 장르", words: ["사극", "의학물", "법정물", "청춘물"], paid: false },
    Topic { theme: "국물 요리", words: ["된장찌개", "미역국", "순두부찌개", "부대찌개"], paid: false },
    Topic { theme: "집에서 좋아하는 곳", words: ["침대", "소파", "창가", "욕조"], paid: false },
    Topic { theme: "이름 6", words: ["지후", "나은", "준우", "다은"], paid: true },
    Topic { theme: "겨울 풍경", words: ["눈사람", "목도리", "핫초코", "귤"], paid: false },
    Topic { theme: "영화관 간식", words: ["팝콘", "나초", "핫도그", "츄러스"], paid: false },
    Topic { theme: "문구", words: ["연필", "만년필", "형광펜", "지우개"], paid: false },
    Topic { theme: "놀이터", words: ["그네", "미끄럼틀", "시소", "정글짐"], paid: false },
    Topic { theme: "차", words: ["녹차", "보리차", "유자차", "캐모마일"], paid: false },
    Topic { theme: "향기", words: ["비누향", "라벤더", "우디향", "시트러스"], paid: false },
    Topic { theme: "채소", words: ["오이", "가지", "당근", "브로콜리"], paid: false },
    Topic { theme: "좋아하는 시간", words: ["새벽", "이른아침", "한낮", "해질녘"], paid: false },
];

/// The built-in topic of `round` (negative rounds wrap too).
pub fn topic_for_round(round: i64) -> &'static Topic {
    let len = i64::try_from(CATALOGUE.len()).unwrap_or(1);
    let index = usize::try_from(round.rem_euclid(len)).unwrap_or(0);
    &CATALOGUE[index % CATALOGUE.len()]
}

/// Every this many rounds one is given to the custom word sets (when any is active).
pub const CUSTOM_EVERY: i64 = 5;

/// An approved custom word set in the rotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomSet {
    pub id: i64,
    /// The first round it may show: set a little after its approval, so that every node
    /// knows it before then and all compute the same words.
    pub active_from_round: i64,
    pub words: [String; 4],
}

/// The custom set `round` shows, if any: on every `CUSTOM_EVERY`-th round, the sets
/// active by then take turns. `sets` must be sorted by `(active_from_round, id)`; the
/// answer depends on nothing else, so every node that holds the same list agrees.
pub fn custom_set_for_round(round: i64, sets: &[CustomSet]) -> Option<&CustomSet> {
    if round.rem_euclid(CUSTOM_EVERY) != 0 {
        return None;
    }
    let active = sets.partition_point(|s| s.active_from_round <= round);
    let count = i64::try_from(active).ok().filter(|n| *n > 0)?;
    let turn = round.div_euclid(CUSTOM_EVERY).rem_euclid(count);
    sets.get(usize::try_from(turn).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn set(id: i64, active_from_round: i64) -> CustomSet {
        CustomSet {
            id,
            active_from_round,
            words: ["가", "나", "다", "라"].map(str::to_owned),
        }
    }

    #[test]
    fn custom_sets_take_every_fifth_round_once_active() {
        let sets = [set(1, 100), set(2, 100), set(3, 120)];
        let at = |round| custom_set_for_round(round, &sets).map(|s| s.id);
        assert_eq!(custom_set_for_round(100, &[]), None);
        assert_eq!(at(95), None, "none is active yet");
        for round in 96..100 {
            assert_eq!(at(round), None);
        }
        assert_eq!(at(100), Some(1), "100 / 5 = 20, even: the first of two");
        assert_eq!(at(101), None);
        assert_eq!(at(105), Some(2));
        assert_eq!(at(110), Some(1));
        assert_eq!(at(115), Some(2));
        assert_eq!(at(120), Some(1), "24 mod 3 = 0: three take turns now");
        assert_eq!(at(125), Some(2));
        assert_eq!(at(130), Some(3));
        assert_eq!(at(-5), None);
        let shown: HashSet<i64> = (120..180).filter_map(at).collect();
        assert_eq!(shown.len(), 3, "all three take turns");
    }

    fn is_hangul_syllable(c: char) -> bool {
        ('\u{AC00}'..='\u{D7A3}').contains(&c)
    }

    #[test]
    fn catalogue_is_large_enough() {
        assert!(CATALOGUE.len() >= 55, "only {} topics", CATALOGUE.len());
    }

    #[test]
    fn every_word_is_one_to_six_hangul_syllables() {
        for topic in CATALOGUE {
            assert!(!topic.theme.is_empty(), "empty theme: {topic:?}");
            for word in topic.words {
                let count = word.chars().count();
                assert!(
                    (1..=6).contains(&count),
                    "bad length: {word:?} in {}",
                    topic.theme
                );
                assert!(
                    word.chars().all(is_hangul_syllable),
                    "not all Hangul syllables: {word:?} in {}",
                    topic.theme
                );
            }
        }
    }

    #[test]
    fn no_topic_repeats_a_word() {
        for topic in CATALOGUE {
            let distinct: HashSet<&str> = topic.words.iter().copied().collect();
            assert_eq!(distinct.len(), 4, "duplicate word in {}", topic.theme);
        }
    }

    #[test]
    fn words_are_unique_across_the_catalogue() {
        let mut seen: HashSet<&str> = HashSet::new();
        for topic in CATALOGUE {
            for word in topic.words {
                assert!(
                    seen.insert(word),
                    "{word:?} appears twice (again in {})",
                    topic.theme
                );
            }
        }
        assert_eq!(seen.len(), CATALOGUE.len() * 4);
    }

    #[test]
    fn paid_topics_are_the_name_topics() {
        let paid: Vec<&Topic> = CATALOGUE.iter().filter(|t| t.paid).collect();
        assert!(paid.len() >= 5, "only {} paid topics", paid.len());
        for topic in &paid {
            assert!(
                topic.theme.contains("이름"),
                "paid topic without 이름: {}",
                topic.theme
            );
        }
        for topic in CATALOGUE.iter().filter(|t| !t.paid) {
            assert!(
                !topic.theme.contains("이름"),
                "name topic not paid: {}",
                topic.theme
            );
        }
    }

    #[test]
    fn paid_topics_are_not_adjacent() {
        for pair in CATALOGUE.windows(2) {
            assert!(
                !(pair[0].paid && pair[1].paid),
                "adjacent paid topics: {} / {}",
                pair[0].theme,
                pair[1].theme
            );
        }
        if let (Some(first), Some(last)) = (CATALOGUE.first(), CATALOGUE.last()) {
            assert!(
                !(first.paid && last.paid),
                "paid topics adjacent across the wrap"
            );
        }
    }
}
