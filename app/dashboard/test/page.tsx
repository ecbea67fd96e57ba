import { HomePage } from '../home';

export const dynamic = 'force-dynamic';

export default function TestHome() {
  return <HomePage mode="test" />;
}
