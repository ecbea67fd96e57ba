import { HomePage } from '../home';

export const dynamic = 'force-dynamic';

export default function TestHome({ searchParams }: { searchParams: Promise<{ error?: string | string[] }> }) {
  return <HomePage mode="test" searchParams={searchParams} />;
}
