import type { Catalog } from '../catalog.js';

// German.
export const de: Catalog = {
  'page.valid.heading': 'Gültiges Zertifikat',
  'page.valid.text': 'Ausgestellt von {issuer} und nicht widerrufen.',
  'page.revoked.heading': 'Widerrufen',
  'page.revoked.textOn':
    'Dieses Zertifikat wurde am {date} von {issuer} widerrufen. Es ist nicht mehr gültig.',
  'page.revoked.text': 'Dieses Zertifikat wurde von {issuer} widerrufen. Es ist nicht mehr gültig.',
  'page.revoked.reason': 'Grund',
  'page.revoked.noReason': 'Der Aussteller hat keinen Grund angegeben.',
  'page.unknown.heading': 'Nicht gültig',
  'page.unknown.text': 'Dieses Zertifikat ist derzeit nicht gültig.',
  'page.expired.text': 'Abgelaufen am {date}',
  'page.superseded.text': 'Dieses Zertifikat wurde ersetzt durch {link}',
  'title.valid': 'Gültiges Zertifikat',
  'title.revoked': 'Widerrufenes Zertifikat',
  'title.unknown': 'Zertifikat nicht gültig',
  'label.awardedTo': 'Verliehen an',
  'label.awardedFor': 'Verliehen für',
  'label.certificate': 'Zertifikat',
  'label.issuedBy': 'Ausgestellt von',
  'label.issuedOn': 'Ausgestellt am',
  'label.code': 'Zertifikatscode',
  'label.signature': 'Digitale Signatur',
  'signature.none': 'Nicht digital signiert: ausgestellt, bevor dieser Dienst seine Zertifikate signierte.',
  'signature.signed':
    'Von {issuer} als Open-Badges-3.0-Nachweis signiert, den jede standardkonforme Prüfsoftware prüfen kann – mit oder ohne diese Website.',
  'signature.pdfSigned':
    'Auch das PDF selbst ist digital signiert (eine PAdES-Signatur, die PDF-Reader anzeigen) und enthält den Nachweis als angehängte Datei {file}.',
  'signature.pdfUnsigned':
    'Das PDF wurde ausgestellt, bevor PDFs signiert wurden: Es trägt keine eigene Signatur.',
  'signature.issuer': 'Aussteller: {did}',
  'signature.download': 'Signierten Nachweis herunterladen',
  'share.heading': 'Aufbewahren und teilen',
  'share.linkedin': 'Zum LinkedIn-Profil hinzufügen',
  'share.download': 'PDF herunterladen',
  'share.linkLabel': 'Link zu dieser Seite',
  'share.copy': 'Link kopieren',
  'share.copied': 'Link kopiert.',
  'share.copyFailed': 'Markieren Sie den Link und kopieren Sie ihn.',
  'check.heading': 'PDF prüfen',
  'check.intro':
    'Sie haben eine Kopie dieses Zertifikats oder seines signierten Nachweises? Prüfen Sie, ob es die Originaldatei ist. Die Datei wird auf Ihrem Gerät geprüft und verlässt Ihren Browser nie.',
  'check.drop': 'PDF oder Nachweis hier ablegen',
  'check.choose': 'oder eine Datei auswählen',
  'check.fingerprint': 'SHA-256-Fingerabdruck des Original-PDFs:',
  'check.checking': '„{file}“ wird geprüft …',
  'check.pdfMatch': 'Dieses PDF stimmt mit dem Originalzertifikat überein.',
  'check.pdfMatchExact': 'Es ist genau die ausgestellte Datei ({file}).',
  'check.pdfMatchRevoked': 'Es ist die ausgestellte Datei, aber das Zertifikat wurde inzwischen widerrufen.',
  'check.pdfMismatch':
    'Dieses PDF stimmt nicht mit dem Original überein: Es ist nicht die ausgestellte Datei.',
  'check.credentialMatch': 'Dieser Nachweis stimmt mit dem signierten Originalnachweis überein.',
  'check.credentialMatchExact': 'Es ist genau der ausgestellte Nachweis ({file}).',
  'check.credentialMatchRevoked':
    'Es ist der ausgestellte Nachweis, aber das Zertifikat wurde inzwischen widerrufen.',
  'check.credentialMismatch':
    'Dieser Nachweis stimmt nicht mit dem Original überein: Es ist nicht die ausgestellte Datei.',
  'check.credentialNone':
    'Dieses Zertifikat wurde ausgestellt, bevor Zertifikate einen signierten Nachweis enthielten.',
  'check.mismatchDetail':
    'Die Datei „{file}“ wurde möglicherweise bearbeitet oder gehört zu einem anderen Zertifikat.',
  'check.error': 'Diese Datei konnte nicht gelesen werden. Bitte versuchen Sie es erneut.',
  'page.footer': 'Prüfseite für das Zertifikat {code}',
  'page.language': 'Sprache',
  'preview.valid': 'Zertifikat, ausgestellt von {issuer} am {date} für {name}. Geprüft: gültig.',
  'preview.revoked': 'Zertifikat, ausgestellt von {issuer} für {name}. Widerrufen: nicht mehr gültig.',
  'preview.unknown': 'Zertifikat, ausgestellt von {issuer} für {name}. Derzeit nicht gültig.',
  'notFound.heading': 'Kein Zertifikat gefunden',
  'notFound.text': 'Es gibt kein Zertifikat mit dem Code {code}.',
  'notFound.whatLabel': 'Was Sie tun können',
  'notFound.what':
    'Prüfen Sie den Code auf Tippfehler oder scannen Sie den QR-Code auf dem Zertifikat erneut. Wird es weiterhin nicht gefunden, wurde das Zertifikat nicht von diesem Dienst ausgestellt.',
  'email.subject': 'Ihr Zertifikat: {title} – {name}',
  'email.hello': 'Hallo {name},',
  'email.issued': '{issuer} hat Ihnen ein Zertifikat ausgestellt: {title}.',
  'email.attached': 'Das Zertifikat ist dieser E-Mail als PDF angehängt.',
  'email.checkAt': 'Jeder kann seine Echtheit hier prüfen:',
  'email.code': 'Zertifikatscode: {code}',
  'email.linkedin': 'Fügen Sie es Ihrem LinkedIn-Profil hinzu:',
  'email.linkedinLink': 'Zum LinkedIn-Profil hinzufügen',
  'email.credential':
    'Es ist außerdem ein signierter digitaler Nachweis (Open Badges 3.0), den Sie in einer digitalen Brieftasche aufbewahren oder einem Profil hinzufügen können und den jeder auch ohne diese Website prüfen kann:',
  'email.credentialLink': 'Nachweis herunterladen',
};
