//! The cost of the abuse filter per chat message, in a release build:
//! `cargo run --release -p telepathy-domain --example moderation_cost`.
//!
//! Runs `mask` and `mask_contacts` apart over a mix of typical chat sentences (about 30
//! characters each) and prints the mean time per call. It asserts nothing: timings depend
//! on the machine.

use std::hint::black_box;
use std::time::Instant;

use telepathy_domain::moderation;

const SENTENCES: &[&str] = &[
    "안녕하세요 반가워요 오늘 하루 어떻게 보내셨어요?",
    "저는 주말에 등산 가는 거 좋아해요 같이 가실래요",
    "ㅋㅋㅋㅋ 진짜 웃기다 그거 어디서 봤어요?",
    "요즘 날씨가 너무 추워서 밖에 나가기 싫어요 ㅠㅠ",
    "저녁 8시 30분에 강남역 11번 출구에서 만나요",
    "이번 사건의 시발점은 작은 오해였던 것 같아요",
    "세 시 발표 준비 다 됐어? 자료 좀 보내줘",
    "시바견 키우는데 산책을 하루에 두 번 시켜요",
    "아 진짜 시발 오늘 일 너무 많아서 죽겠다",
    "넷플릭스에서 재밌는 드라마 추천해 주세요!",
    "hello nice to meet you, where are you from?",
    "카톡 아이디 알려주시면 연락 드릴게요 감사해요",
    "제 번호는 공일공 일이삼사 오육칠팔 이에요",
    "취미가 뭐예요? 저는 요리하고 사진 찍는 거요",
    "어제 본 영화 결말이 너무 슬퍼서 울었어요",
    "배고프다 떡볶이랑 순대 먹고 싶은 밤이네요",
];

fn measure(name: &str, calls: usize, f: impl Fn(&str) -> String) {
    // Warm up the lazily built automata and patterns.
    for s in SENTENCES {
        black_box(f(black_box(s)));
    }
    let started = Instant::now();
    for n in 0..calls {
        let s = SENTENCES[n % SENTENCES.len()];
        black_box(f(black_box(s)));
    }
    let per_call = started.elapsed().as_secs_f64() / calls as f64;
    println!("{name:>14}: {:.3} µs per message", per_call * 1e6);
}

fn main() {
    let calls = 200_000;
    let chars: usize = SENTENCES.iter().map(|s| s.chars().count()).sum();
    println!(
        "{} sentences, {:.1} characters on average, {calls} calls each",
        SENTENCES.len(),
        chars as f64 / SENTENCES.len() as f64
    );
    measure("mask", calls, moderation::mask);
    measure("mask_contacts", calls, moderation::mask_contacts);
}
