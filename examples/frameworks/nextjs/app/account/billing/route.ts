/**
 * Your login leads into Frank's cabinet: a one-time sign-in link for the signed-in user's partner.
 * A stand-in: take the partner id from YOUR session (stored beside your user when you called
 * `frank.partners.create`), not from the query.
 */
import { type NextRequest, NextResponse } from "next/server.js"
import { getFrank } from "../../../lib/frank.js"

export const runtime = "nodejs"
export const dynamic = "force-dynamic"

export const GET = async (request: NextRequest): Promise<Response> => {
  const frank = await getFrank()
  return NextResponse.redirect(await frank.sessions.signInUrl(request.nextUrl.searchParams.get("partner") ?? ""))
}
