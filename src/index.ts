export default {
  async fetch(): Promise<Response> {
    return new Response("not yet", { status: 503 });
  },
};
