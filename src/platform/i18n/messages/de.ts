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
  'page.expired.body': 'Dieses Zertifikat von {issuer} war bis dahin gültig. Es ist nicht mehr gültig.',
  'page.superseded.text': 'Dieses Zertifikat wurde ersetzt durch {link}',
  'page.superseded.link': 'Zum korrigierten Zertifikat',
  'page.superseded.heading': 'Durch ein korrigiertes Zertifikat ersetzt',
  'page.superseded.textOn':
    '{issuer} hat dieses Zertifikat am {date} durch ein korrigiertes ersetzt. Dieses ist nicht mehr gültig.',
  'page.superseded.textNoDate':
    '{issuer} hat dieses Zertifikat durch ein korrigiertes ersetzt. Dieses ist nicht mehr gültig.',
  'page.superseded.reason': 'Ersetzt durch {code}',
  'title.superseded': 'Ersetztes Zertifikat',
  'preview.superseded':
    'Zertifikat, ausgestellt von {issuer} für {name}. Durch ein korrigiertes Zertifikat ersetzt.',
  'signature.details': 'Technische Details',
  'title.valid': 'Gültiges Zertifikat',
  'title.revoked': 'Widerrufenes Zertifikat',
  'title.unknown': 'Zertifikat nicht gültig',
  'title.expired': 'Abgelaufenes Zertifikat',
  'label.awardedTo': 'Verliehen an',
  'label.awardedFor': 'Verliehen für',
  'label.certificate': 'Zertifikat',
  'label.issuedBy': 'Ausgestellt von',
  'issuer.renamed': '{issuer}, heute {current}',
  'label.issuedOn': 'Ausgestellt am',
  'label.validUntil': 'Gültig bis',
  'label.expiredOn': 'Abgelaufen am',
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
  'check.notPdfOrCredential': 'Diese Datei ist weder ein PDF noch ein Nachweis (JSON).',
  'check.notPdfOrCredentialDetail':
    'Unabhängig von ihrem Namen enthält „{file}“ weder ein PDF noch einen Nachweis und kann daher nicht mit diesem Zertifikat verglichen werden.',
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
  'reminder.subject': 'Ihr Zertifikat läuft am {date} ab: {title}',
  'reminder.expires': 'Ihr Zertifikat von {issuer}, {title}, läuft am {date} ab.',
  'reminder.renewAt': 'Hier können Sie es erneuern:',
  'reminder.renewLink': 'Hier erneuern',
  'reminder.contact': 'Wenden Sie sich zur Erneuerung an {issuer}.',
  'reminder.status': 'Das Zertifikat und sein Status:',
  'door.title': 'Zertifikate',
  'door.intro': 'Dieser Dienst stellt Zertifikate aus, und jeder kann prüfen, ob ein Zertifikat echt ist.',
  'door.verifyHeading': 'Zertifikat prüfen',
  'door.verifyHint':
    'Geben Sie den 16-stelligen Code ein, der auf dem Zertifikat steht, oder fügen Sie seinen Prüflink ein.',
  'door.codeLabel': 'Zertifikatscode',
  'door.verifyButton': 'Prüfen',
  'door.issuers': 'Für Aussteller',
  'door.dashboard': 'Dashboard',
  'door.dashboardText':
    'Für die Mitarbeitenden einer ausstellenden Organisation: anmelden, um Zertifikate auszustellen, zu versenden und zu widerrufen.',
  'door.docs': 'API-Referenz',
  'door.docsText': 'Für Entwickler: die HTTP-API mit ihrer OpenAPI-Beschreibung.',
  'door.notACode': '„{input}“ ist kein Zertifikatscode: Ein Code hat 16 Buchstaben und Ziffern.',
  // Issue 31: the wallet link (email, verification page, claim page).
  'email.wallet':
    'Bewahren Sie es in einer digitalen Wallet-App auf (es gehört nur Ihnen; der Link gilt 30 Tage): Öffnen Sie den Link auf Ihrem Telefon oder scannen Sie den Code mit Ihrer Wallet:',
  'email.walletLink': 'Zur Wallet hinzufügen',
  'email.walletQrAlt': 'QR-Code des Links, der das Zertifikat zu Ihrer Wallet hinzufügt',
  'walletEmail.subject': 'Ihr Wallet-Link: {title}',
  'walletEmail.asked':
    'Sie haben den Link angefordert, der Ihr Zertifikat {title} von {issuer} zu einer digitalen Wallet hinzufügt. Er gehört nur Ihnen und gilt 30 Tage:',
  'walletEmail.notYou': 'Wenn Sie ihn nicht angefordert haben, können Sie diese E-Mail ignorieren.',
  'wallet.heading': 'Sind Sie der Empfänger?',
  'wallet.intro':
    'Wir können den Link, der dieses Zertifikat zu einer digitalen Wallet hinzufügt, an die Adresse senden, für die es ausgestellt wurde.',
  'wallet.button': 'Wallet-Link per E-Mail senden',
  'wallet.sent.heading': 'Anfrage erhalten',
  'wallet.sent.text':
    'Wenn dieses Zertifikat zu einer Wallet hinzugefügt werden kann, erhält sein Empfänger in Kürze eine E-Mail mit dem Link.',
  'wallet.sent.back': 'Zurück zum Zertifikat',
  'claim.heading': 'Fügen Sie Ihr Zertifikat zu einer Wallet hinzu',
  'claim.intro':
    'Scannen Sie diesen Code mit Ihrer Wallet-App oder öffnen Sie den Link auf dem Telefon mit Ihrer Wallet.',
  'claim.add': 'Zur Wallet hinzufügen',
  'claim.qrAlt': 'QR-Code für Ihre Wallet-App',
  'claim.badge': 'Badge herunterladen',
  'claim.correction': 'Korrektur beantragen',
  'claim.private': 'Diese Seite ist nur für Sie: Teilen Sie ihre Adresse nicht.',
  'claim.uses': 'Dieser Link gilt bis {date}; er kann noch {n}-mal verwendet werden.',
  'claim.notFound.heading': 'Wallet-Link nicht gefunden',
  'claim.notFound.text':
    'Prüfen Sie die Adresse oder fordern Sie auf der Prüfseite des Zertifikats einen neuen Link an.',
  'claim.gone.heading': 'Dieser Wallet-Link kann nicht mehr verwendet werden',
  'claim.gone.expired':
    'Dieser Wallet-Link ist abgelaufen. Fordern Sie auf der Prüfseite des Zertifikats einen neuen an.',
  'claim.gone.used_up':
    'Dieser Wallet-Link wurde so oft verwendet wie möglich. Fordern Sie auf der Prüfseite des Zertifikats einen neuen an.',
  'claim.gone.revoked':
    'Dieses Zertifikat wurde widerrufen: Es kann nicht mehr zu einer Wallet hinzugefügt werden.',
  'claim.gone.superseded':
    'Dieses Zertifikat wurde durch ein korrigiertes ersetzt: Verwenden Sie den Link, der mit dem neuen gesendet wurde.',
  'claim.title': '{title} — {name}',
};
