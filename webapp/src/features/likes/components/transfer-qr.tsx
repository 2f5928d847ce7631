import { useEffect, useState } from 'react';
import { ko } from '@/i18n/ko';
import { tossLink, type TransferView } from '../lib/transfer';

/**
 * The transfer as a QR code for a phone's camera (the desktop's way to a banking app): an SVG
 * drawn in the browser, shown as a data: image (the CSP allows img-src data:).
 */
export function TransferQr({ transfer }: { transfer: TransferView }) {
  const [src, setSrc] = useState<string | null>(null);
  const link = tossLink(transfer);

  useEffect(() => {
    let current = true;
    // Loaded only when a QR code is drawn: most visits never need it.
    import('qrcode')
      .then((QRCode) =>
        QRCode.toString(link, { type: 'svg', margin: 1, errorCorrectionLevel: 'M', color: { dark: '#1e1b3a', light: '#ffffff' } }),
      )
      .then((svg) => {
        if (current) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => {
        if (current) setSrc(null);
      });
    return () => {
      current = false;
    };
  }, [link]);

  return (
    <figure className="transfer-qr">
      <div className="transfer-qr__frame">
        {src ? (
          <img className="transfer-qr__image" src={src} width={176} height={176} alt={ko.likes.qrAlt(transfer.bank, transfer.account)} />
        ) : (
          <span className="transfer-qr__placeholder" aria-hidden="true" />
        )}
      </div>
      <figcaption className="transfer-qr__caption">{ko.likes.qrLabel}</figcaption>
    </figure>
  );
}
