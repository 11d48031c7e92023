import { useState } from 'react';

/** Copies a text to the clipboard, and says so for a moment (to screen readers too). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a refused permission): the text stays shown to select by hand.
      setCopied(false);
    }
    setTimeout(() => setCopied(null), 3000);
  }
  return (
    <>
      <button type="button" className="secondary outline small" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span role="status" className="copy-status">
        {copied === true ? 'Copied.' : copied === false ? 'Could not copy: select the text and copy it.' : ''}
      </span>
    </>
  );
}
