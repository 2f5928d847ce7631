import type { ReactNode } from 'react';
import type { Emotion } from '@/lib/feedback';

const INK = '#3b2f2f';

/** Each mood's face color and features, drawn on a 36 × 36 circle. */
const faces: Record<Emotion, { color: string; features: ReactNode }> = {
  기뻐요: {
    color: '#fcd34d',
    features: (
      <>
        <path d="M10.5 15.5q2.5-3.2 5 0M20.5 15.5q2.5-3.2 5 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
        <path d="M11 20h14a7 7 0 0 1-14 0z" fill={INK} />
        <path d="M14.5 24.6a4.5 3 0 0 1 7 0 6.8 6.8 0 0 1-7 0z" fill="#f87171" />
      </>
    ),
  },
  괜찮아요: {
    color: '#a7f3d0',
    features: (
      <>
        <circle cx="13" cy="15.5" r="1.8" fill={INK} />
        <circle cx="23" cy="15.5" r="1.8" fill={INK} />
        <path d="M13 22q5 3.2 10 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
      </>
    ),
  },
  슬퍼요: {
    color: '#bfdbfe',
    features: (
      <>
        <path d="M10 12.5l4-1.6M26 12.5l-4-1.6" stroke={INK} strokeWidth="1.8" fill="none" strokeLinecap="round" />
        <circle cx="13" cy="16.5" r="1.8" fill={INK} />
        <circle cx="23" cy="16.5" r="1.8" fill={INK} />
        <path d="M13 26q5-4.5 10 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
        <path d="M24.2 19.5q-1.8 2.8 0 4 1.8-1.2 0-4z" fill="#3b82f6" />
      </>
    ),
  },
  행복해요: {
    color: '#fbcfe8',
    features: (
      <>
        <path d="M10.5 16q2.5-3.2 5 0M20.5 16q2.5-3.2 5 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
        <circle cx="10" cy="20.5" r="2.4" fill="#f472b6" opacity="0.7" />
        <circle cx="26" cy="20.5" r="2.4" fill="#f472b6" opacity="0.7" />
        <path d="M13.5 21.5q4.5 4.5 9 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
      </>
    ),
  },
  화나요: {
    color: '#fca5a5',
    features: (
      <>
        <path d="M9.8 12.5l5.4 2.4M26.2 12.5l-5.4 2.4" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
        <circle cx="13.5" cy="17.5" r="1.8" fill={INK} />
        <circle cx="22.5" cy="17.5" r="1.8" fill={INK} />
        <path d="M13 25.5q5-3.6 10 0" stroke={INK} strokeWidth="2" fill="none" strokeLinecap="round" />
      </>
    ),
  },
};

/** A drawn face for a mood, the same on every device (emoji fonts differ). */
export function EmotionFace({ emotion }: { emotion: Emotion }) {
  const face = faces[emotion];
  return (
    <svg className="emotion-face" viewBox="0 0 36 36" width="36" height="36" aria-hidden="true">
      <circle cx="18" cy="18" r="16" fill={face.color} />
      {face.features}
    </svg>
  );
}
