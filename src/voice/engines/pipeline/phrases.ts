/**
 * What the pipeline engine says on its own, in the assistant's language (ISO 639-1): the
 * filler while a reply or a tool is slow, and the apology before a call it can no longer
 * hold is hung up. A language not listed speaks English.
 */
const PHRASES: Record<string, { filler: string; apology: string }> = {
  pt: { filler: 'Um momento.', apology: 'Desculpe, estamos com um problema técnico e vamos encerrar a ligação. Obrigado.' },
  en: { filler: 'One moment.', apology: 'Sorry, we are having a technical problem and have to end the call. Thank you.' },
  es: { filler: 'Un momento.', apology: 'Lo siento, tenemos un problema técnico y vamos a terminar la llamada. Gracias.' },
  de: { filler: 'Einen Moment.', apology: 'Entschuldigung, wir haben ein technisches Problem und beenden den Anruf. Danke.' },
  fr: { filler: 'Un instant.', apology: 'Désolé, nous avons un problème technique et devons mettre fin à l’appel. Merci.' },
  it: { filler: 'Un momento.', apology: 'Mi dispiace, abbiamo un problema tecnico e dobbiamo chiudere la chiamata. Grazie.' },
  nl: { filler: 'Een moment.', apology: 'Sorry, we hebben een technisch probleem en moeten het gesprek beëindigen. Bedankt.' },
  pl: { filler: 'Chwileczkę.', apology: 'Przepraszamy, mamy problem techniczny i musimy zakończyć rozmowę. Dziękujemy.' },
  ru: { filler: 'Одну минуту.', apology: 'Извините, у нас техническая проблема, и мы вынуждены завершить звонок. Спасибо.' },
  tr: { filler: 'Bir dakika.', apology: 'Üzgünüz, teknik bir sorun yaşıyoruz ve görüşmeyi sonlandırmamız gerekiyor. Teşekkürler.' },
  ar: { filler: 'لحظة من فضلك.', apology: 'عذرًا، لدينا مشكلة تقنية وسننهي المكالمة. شكرًا لك.' },
  hi: { filler: 'एक क्षण।', apology: 'क्षमा करें, तकनीकी समस्या के कारण हमें कॉल समाप्त करनी होगी। धन्यवाद।' },
  ja: { filler: '少々お待ちください。', apology: '申し訳ありません。技術的な問題のため、通話を終了します。ありがとうございました。' },
  ko: { filler: '잠시만요.', apology: '죄송합니다. 기술적인 문제로 통화를 종료합니다. 감사합니다.' },
  zh: { filler: '请稍等。', apology: '抱歉，我们遇到了技术问题，需要结束通话。谢谢。' },
};

export function phrases(language: string | null): { filler: string; apology: string } {
  return PHRASES[language ?? 'en'] ?? PHRASES.en;
}
