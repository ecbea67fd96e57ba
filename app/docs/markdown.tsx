import type { ReactNode } from 'react';

/**
 * The little markdown the document's descriptions use: paragraphs, `- ` lists and `code`.
 * Text is rendered as React text, never as HTML, so a description cannot inject markup.
 */
export function Inline({ text }: { text: string }): ReactNode {
  return text.split(/(`[^`]+`)/g).map((part, index) => (part.length > 2 && part.startsWith('`') && part.endsWith('`') ? <code key={index}>{part.slice(1, -1)}</code> : part));
}

export function Markdown({ text }: { text: string | undefined }): ReactNode {
  if (!text) return null;
  return text
    .trim()
    .split(/\n\s*\n/)
    .map((block, index) => {
      const lines = block.split('\n');
      if (lines.every((line) => line.startsWith('- '))) {
        return (
          <ul key={index}>
            {lines.map((line, item) => (
              <li key={item}>
                <Inline text={line.slice(2)} />
              </li>
            ))}
          </ul>
        );
      }
      return (
        <p key={index}>
          <Inline text={lines.join(' ')} />
        </p>
      );
    });
}
