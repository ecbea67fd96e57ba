import { HomePage } from './home';

export const dynamic = 'force-dynamic';

export default function LiveHome() {
  return <HomePage mode="live" />;
}
