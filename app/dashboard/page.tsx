import { HomePage } from './home';

export const dynamic = 'force-dynamic';

export default function LiveHome({ searchParams }: { searchParams: Promise<{ error?: string | string[] }> }) {
  return <HomePage mode="live" searchParams={searchParams} />;
}
