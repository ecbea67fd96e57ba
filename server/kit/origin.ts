/**
 * Cross-site form posts to the dashboard are refused: a browser always sends Origin on a POST,
 * and only a page of the service itself may send ours.
 */
export function isServiceOrigin(origin: string | null, publicBaseUrl: string): boolean {
  return origin !== null && origin === new URL(publicBaseUrl).origin;
}
