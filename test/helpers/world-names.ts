// Names in every writing system the bundled fonts cover (docs/design-format.md), shared by the
// tests and the benchmarks.
export const worldNames: readonly { script: string; name: string }[] = [
  { script: 'Latin', name: 'Zoë Ångström-Łukasiewicz' },
  { script: 'Vietnamese', name: 'Nguyễn Thị Minh Khai' },
  { script: 'Greek', name: 'Αλέξανδρος Παπαδόπουλος' },
  { script: 'Cyrillic', name: 'Анна Каренина-Щукина' },
  { script: 'Arabic', name: 'محمد بن علي' },
  { script: 'Persian', name: 'فاطمه زهرا‌یی' },
  { script: 'Urdu', name: 'عمران خان ٹیپو' },
  { script: 'Hebrew', name: 'דוד כהן' },
  { script: 'Devanagari', name: 'प्रियंका शर्मा' },
  { script: 'Bengali', name: 'সৌমিত্র চট্টোপাধ্যায়' },
  { script: 'Tamil', name: 'தமிழ்செல்வி' },
  { script: 'Thai', name: 'สมชาย ใจดี' },
  { script: 'Chinese (simplified)', name: '王小明' },
  { script: 'Chinese (traditional)', name: '陳大文' },
  { script: 'Japanese', name: '山田 さくら' },
  { script: 'Korean', name: '김민준' },
  { script: 'Georgian', name: 'ნინო ბერიძე' },
  { script: 'Armenian', name: 'Արմեն Սարգսյան' },
  { script: 'Latin and Arabic', name: 'Omar عمر Khalid' },
];

/** Text compared without spaces, joiners and the bidi marks pdftotext puts around right-to-left lines. */
export function comparable(text: string): string {
  return text.normalize('NFC').replace(/\s|\u200c|\u200d|[\u202a-\u202e]/g, '');
}
